package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class H2ResourceTest {
  @TempDir
  Path base;

  @Test
  void anotherJvmReadsWhatTheLabWrote() throws Exception {
    try (H2Resource h2 = H2Resource.open(base)) {
      assertThat(h2.url()).startsWith("jdbc:h2:file:").endsWith("lab;AUTO_SERVER=TRUE");
      assertThat(h2.lockUrl()).endsWith("locks;AUTO_SERVER=TRUE");
      try (Statement s = h2.connection().createStatement()) {
        s.execute("CREATE TABLE stock (n INT)");
        s.execute("INSERT INTO stock VALUES (42)");
      }
      List<String> command = new ArrayList<>(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", System.getProperty("java.class.path")));
      command.addAll(H2Resource.WORKER_JVM_ARGS);
      command.addAll(List.of(H2ResourceTest.class.getName(), h2.url()));
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      assertThat(p.waitFor()).as(out).isZero();
      assertThat(out).endsWith("42");
      try (Connection c = DriverManager.getConnection(h2.lockUrl()); Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT 1")) {
        assertThat(rs.next()).isTrue();
      }
    }
    assertThat(Files.list(base)).isEmpty();
  }

  /** The other JVM: prints the stock it reads through the lab's auto-server. */
  public static void main(String[] args) throws Exception {
    try (Connection c = DriverManager.getConnection(args[0]); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT n FROM stock")) {
      rs.next();
      System.out.println(rs.getInt(1));
    }
  }
}

package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PostgresProcessTest {
  @TempDir
  Path base;

  private static int selectOne(String url) throws SQLException {
    try (Connection c = DriverManager.getConnection(url + "&connectTimeout=1&socketTimeout=1");
         Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Test
  void pauseStopsEveryProcessAndResumeLetsThemAnswer() throws Exception {
    long t0 = System.nanoTime();
    try (PostgresProcess server = PostgresProcess.start(base)) {
      System.out.printf("postgres start %d ms%n", (System.nanoTime() - t0) / 1_000_000);
      assertThat(server.url()).isEqualTo("jdbc:postgresql://127.0.0.1:" + server.port() + "/postgres?user=postgres");
      try (Connection open = DriverManager.getConnection(server.url() + "&socketTimeout=1")) {
        assertThat(selectOne(server.url())).isEqualTo(1);
        long backends = ProcessHandle.of(server.pid()).orElseThrow().descendants().count();
        assertThat(backends).isPositive();
        server.pause();
        try {
          assertThatThrownBy(() -> open.createStatement().executeQuery("SELECT 1"))
              .isInstanceOf(SQLException.class);
          assertThatThrownBy(() -> selectOne(server.url())).isInstanceOf(SQLException.class);
        } finally {
          server.resume();
        }
        assertThat(Poll.until(Duration.ofSeconds(10), () -> selectOne(server.url()))).isEqualTo(1);
      }
    }
    assertThat(Files.list(base)).isEmpty();
  }

  @Test
  void restartAfterKillKeepsATable() throws Exception {
    try (PostgresProcess server = PostgresProcess.start(base)) {
      try (Connection c = DriverManager.getConnection(server.url()); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE kept (v int)");
        s.execute("INSERT INTO kept VALUES (7)");
      }
      long pid = server.pid();
      server.pause(); // a paused server must restart too
      long t0 = System.nanoTime();
      server.restart();
      System.out.printf("postgres restart %d ms%n", (System.nanoTime() - t0) / 1_000_000);
      assertThat(server.pid()).isNotEqualTo(pid);
      assertThat(Procs.ended(pid)).isTrue();
      try (Connection c = DriverManager.getConnection(server.url()); Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT v FROM kept")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(7);
      }
    }
  }
}

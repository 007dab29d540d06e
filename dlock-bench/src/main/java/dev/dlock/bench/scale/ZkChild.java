package dev.dlock.bench.scale;

import dev.dlock.bench.targets.ZkServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Runs the bench's ZooKeeper ({@link ZkServer}) in a child JVM, so the scale rows weigh the client's
 * heap without the server's data tree beside it. The child prints its connect string and lives
 * until its stdin closes, which the parent's exit does. The {@code mntr} command is allowed, for
 * counting requests. A connect string already set ({@value ZkServer#CONNECT_PROPERTY}) is used as is.
 */
public final class ZkChild {
  static final int SESSION_TIMEOUT_MS = 10_000;
  private static final String MARK = "zk-child-connect=";
  private static String connect;

  private ZkChild() {}

  /** In the child: starts the server, prints where, and waits for the parent to go. */
  public static void main(String[] args) throws IOException {
    System.setProperty("zookeeper.4lw.commands.whitelist", "mntr,srvr");
    System.out.println(MARK + ZkServer.connectString());
    System.out.flush();
    while (System.in.read() >= 0) {
      // the parent never writes; end of input means it is gone
    }
    System.exit(0);
  }

  /** The connect string of the child's server, starting the child on first use. */
  static synchronized String connectString() {
    if (connect != null) {
      return connect;
    }
    String set = System.getProperty(ZkServer.CONNECT_PROPERTY);
    if (set != null) {
      return connect = set;
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, "-Xmx1g", "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
        "-cp", System.getProperty("java.class.path"), ZkChild.class.getName());
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    try {
      Process child = pb.start();
      Runtime.getRuntime().addShutdownHook(new Thread(child::destroy, "bench-zk-child-stop"));
      BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.startsWith(MARK)) {
          return connect = line.substring(MARK.length()).trim();
        }
      }
      throw new IllegalStateException("the ZooKeeper child JVM ended before printing its connect string");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the ZooKeeper child JVM", e);
    }
  }
}

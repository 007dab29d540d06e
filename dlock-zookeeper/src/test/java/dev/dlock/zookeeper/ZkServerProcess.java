package dev.dlock.zookeeper;

import dev.dlock.testkit.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.server.ZooKeeperServerMain;

/**
 * A standalone ZooKeeper server in a JVM of its own, on loopback, so that a test can pause it
 * with SIGSTOP as a long GC pause or a hung host would: connections stay open, nothing answers.
 * The same tick and session limits as {@link ZkServers}. It exits when its stdin closes.
 */
final class ZkServerProcess implements AutoCloseable {
  final int port;
  private final ChildJvm jvm;

  private ZkServerProcess(int port, ChildJvm jvm) {
    this.port = port;
    this.jvm = jvm;
  }

  /** Starts a server and waits, polling its {@code srvr} command, until it serves. */
  static ZkServerProcess start() throws Exception {
    int port = FreePorts.next();
    Path dir = Files.createTempDirectory("zk-process-");
    ChildJvm jvm = ChildJvm.start(ZkServerProcess.class, List.of(), Integer.toString(port), dir.toString());
    ZkServerProcess server = new ZkServerProcess(port, jvm);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      try {
        if (ZkServers.fourLetters(port, "srvr").contains("Mode: standalone")) {
          return server;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      if (System.nanoTime() - deadline > 0 || !jvm.process.isAlive()) {
        server.close();
        throw new AssertionError("the ZooKeeper server process did not start: " + jvm.output());
      }
      Thread.sleep(50);
    }
  }

  String connectString() {
    return "127.0.0.1:" + port;
  }

  void pause() throws Exception {
    jvm.signal("STOP");
  }

  void resume() throws Exception {
    jvm.signal("CONT");
  }

  @Override
  public void close() throws InterruptedException {
    jvm.close();
  }

  /** The child's main: {@code <port> <dataDir>}. */
  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[1]);
    Path cfg = dir.resolve("zoo.cfg");
    Files.writeString(cfg, String.join("\n",
        "tickTime=" + ZkServers.TICK_MS,
        "minSessionTimeout=200",
        "maxSessionTimeout=30000",
        "dataDir=" + dir,
        "clientPort=" + args[0],
        "clientPortAddress=127.0.0.1",
        "admin.enableServer=false",
        "4lw.commands.whitelist=srvr",
        ""));
    Thread server = new Thread(() -> ZooKeeperServerMain.main(new String[] {cfg.toString()}), "zookeeper");
    server.setDaemon(true);
    server.start();
    while (System.in.read() >= 0) {
      // until the test JVM closes the pipe, or dies
    }
    System.exit(0);
  }
}

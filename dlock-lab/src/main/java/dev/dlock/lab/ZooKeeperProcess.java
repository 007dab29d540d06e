package dev.dlock.lab;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A standalone ZooKeeper server in a JVM of its own ({@link ZooKeeperMain}, the lab's classpath),
 * on 127.0.0.1, with a data directory that survives {@link #restart()}: ZooKeeper writes every
 * transaction to its log before it answers, so persistent nodes come back after a {@code kill -9}.
 *
 * <p>Why a child JVM rather than curator-test's in-process server: a pause (SIGSTOP) and a crash
 * (SIGKILL) must hit the server alone, with a pid of its own.
 */
public final class ZooKeeperProcess extends ChildServer {
  private ZooKeeperProcess(int port, Path dir) {
    super("ZooKeeper", port, dir);
  }

  /**
   * Starts a server on a free port with a new data directory under {@code baseDir}; returns once
   * it reports {@code Mode: standalone}.
   */
  public static ZooKeeperProcess start(Path baseDir) {
    return startOnFreePort(baseDir, "zookeeper", ZooKeeperProcess::new);
  }

  /** The plain connect string, {@code 127.0.0.1:<port>}, for Curator or ZooKeeper's own client. */
  public String connectString() {
    return "127.0.0.1:" + port;
  }

  @Override
  public String url() {
    return "zookeeper://127.0.0.1:" + port;
  }

  @Override
  public String toString() {
    return "ZooKeeper " + url() + " (" + dir + ")";
  }

  @Override
  protected void launch() {
    Path log = dir.resolve("zookeeper.log");
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
        "-Dzookeeper.snapshot.trust.empty=true",
        "-cp", System.getProperty("java.class.path"),
        ZooKeeperMain.class.getName(), Integer.toString(port), dir.toAbsolutePath().toString()));
    Process process;
    try {
      // stdin stays a pipe from this JVM: the child exits when it closes
      process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the ZooKeeper JVM for port " + port + ": " + e, e);
    }
    started(process);
    Procs.awaitReady("ZooKeeper", port, log, process.toHandle(),
        () -> Procs.ask(port, "srvr", true).contains("Mode: standalone"));
  }
}

package dev.dlock.lab;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One member of a {@link ZooKeeperEnsemble}: a quorum server in a JVM of its own
 * ({@link ZooKeeperPeerMain}), its client port on 127.0.0.1, run from the {@code zoo.cfg} the
 * ensemble wrote into its directory.
 *
 * <p>Why a {@link ChildServer}: a member is paused, killed and started again as any lab server is;
 * only its start differs, as it serves once it is part of a quorum, as leader or follower.
 */
final class QuorumNode extends ChildServer {
  private static final Pattern MODE = Pattern.compile("Mode: (\\w+)");

  private final int id;
  private volatile Process process;

  /** {@code id} is the member's {@code myid}, from 1. */
  QuorumNode(int id, int clientPort, Path dir) {
    super("ZooKeeper member " + id, clientPort, dir);
    this.id = id;
  }

  /** Where the ensemble writes this member's config. */
  Path config() {
    return dir.resolve("zoo.cfg");
  }

  /** The member's log: ZooKeeper's output, kept across restarts. */
  Path log() {
    return dir.resolve("zookeeper.log");
  }

  /** Starts the member's JVM and returns at once: it serves only once a quorum of its peers runs too. */
  void spawn() {
    List<String> command = List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
        "-Dzookeeper.snapshot.trust.empty=true",
        // times in the log, to line a member's elections up with the workers' histories
        "-Dorg.slf4j.simpleLogger.showDateTime=true", "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
        "-cp", System.getProperty("java.class.path"),
        ZooKeeperPeerMain.class.getName(), config().toAbsolutePath().toString());
    Process p;
    try {
      // stdin stays a pipe from this JVM: the child exits when it closes
      p = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile())).start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the JVM of ZooKeeper member " + id + ": " + e, e);
    }
    process = p;
    started(p);
  }

  /** Starts the member and returns once it serves, as leader or follower. */
  @Override
  protected void launch() {
    spawn();
    Procs.awaitReady("ZooKeeper member " + id, port, log(), process.toHandle(), this::serves);
  }

  /** Whether the member's JVM is still running. */
  boolean alive() {
    Process p = process;
    return p != null && p.isAlive();
  }

  /** Whether the member serves clients: it is the leader or a follower of one. */
  boolean serves() {
    String mode = mode();
    return mode.equals("leader") || mode.equals("follower");
  }

  /** The mode {@code srvr} reports ({@code leader}, {@code follower}), or "" when the member serves nothing. */
  String mode() {
    Matcher m = MODE.matcher(Procs.ask(port, "srvr", true));
    return m.find() ? m.group(1) : "";
  }

  @Override
  public String url() {
    return "zookeeper://127.0.0.1:" + port;
  }

  @Override
  public String toString() {
    return "ZooKeeper member " + id + " " + url() + " (" + dir + ")";
  }
}

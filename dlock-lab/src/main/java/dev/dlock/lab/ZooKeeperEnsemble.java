package dev.dlock.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Three ZooKeeper servers in quorum mode on 127.0.0.1, each in a JVM of its own: what a ZooKeeper
 * lock runs on in production. Faults act on one member ({@link #kill}, {@link #start}) or on the
 * network between the members ({@link #isolate}, {@link #heal}); every member-to-member connection
 * runs through a proxy of its own ({@link PeerLinks}). The server-wide faults of
 * {@link LabServer} ({@link #pause}, {@link #restart}) act on all three.
 *
 * <p>Timing: a tick of {@value ZooKeeperMain#TICK_MS} ms; a follower that hears nothing from its
 * leader for {@value #SYNC_LIMIT} ticks leaves it, and so does a leader without a quorum; a
 * member has {@value #INIT_LIMIT} ticks to join a new leader.
 */
public final class ZooKeeperEnsemble implements LabServer {
  /** How many members. */
  public static final int SIZE = 3;
  static final int SYNC_LIMIT = 5;
  static final int INIT_LIMIT = 20;

  private final Path dir;
  private final PeerLinks peers;
  private final List<QuorumNode> nodes = new ArrayList<>();
  private final Duration sessionTimeout;

  private ZooKeeperEnsemble(Path dir, PeerLinks peers, Duration sessionTimeout) {
    this.dir = dir;
    this.peers = peers;
    this.sessionTimeout = sessionTimeout;
    List<Integer> clientPorts = new ArrayList<>();
    while (clientPorts.size() < SIZE) {
      int port = Procs.freePort();
      if (!clientPorts.contains(port)) {
        clientPorts.add(port);
      }
    }
    for (int n = 0; n < SIZE; n++) {
      nodes.add(new QuorumNode(n + 1, clientPorts.get(n), dir.resolve("member" + (n + 1))));
    }
  }

  /**
   * Starts three members in a new directory under {@code baseDir}; returns once all three serve
   * and one of them leads. Tries three times, with new ports each time: another process may take
   * a port before a member binds it.
   *
   * @param sessionTimeout the session timeout {@link #url()} asks for
   * @throws IllegalStateException naming each member's state and the log of one that failed
   */
  public static ZooKeeperEnsemble start(Path baseDir, Duration sessionTimeout) {
    if (sessionTimeout == null || sessionTimeout.toMillis() < 2L * ZooKeeperMain.TICK_MS) {
      throw new IllegalArgumentException("sessionTimeout must be at least two ticks ("
          + 2 * ZooKeeperMain.TICK_MS + " ms), was " + sessionTimeout);
    }
    IllegalStateException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      PeerLinks peers;
      try {
        peers = PeerLinks.open(SIZE, Duration.ofMillis((long) INIT_LIMIT * ZooKeeperMain.TICK_MS));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot open the proxies between ZooKeeper members: " + e, e);
      }
      ZooKeeperEnsemble ensemble;
      try {
        ensemble = new ZooKeeperEnsemble(Procs.createDir(baseDir, "zk-ensemble-"), peers, sessionTimeout);
      } catch (RuntimeException e) {
        peers.close();
        throw e;
      }
      try {
        ensemble.launch();
        Reaper.register(ensemble);
        return ensemble;
      } catch (RuntimeException e) {
        ensemble.close();
        if (!(e instanceof IllegalStateException notServing)) {
          throw e;
        }
        last = notServing;
      }
    }
    throw last;
  }

  private void launch() {
    for (int n = 0; n < SIZE; n++) {
      writeConfig(n);
    }
    nodes.forEach(QuorumNode::spawn);
    awaitWhole(Procs.START_DEADLINE, "after its start");
  }

  /** Member {@code n}'s zoo.cfg, with its peers behind its own proxies, and its myid. */
  private void writeConfig(int n) {
    QuorumNode node = nodes.get(n);
    List<String> lines = new ArrayList<>(List.of(
        "tickTime=" + ZooKeeperMain.TICK_MS,
        "initLimit=" + INIT_LIMIT,
        "syncLimit=" + SYNC_LIMIT,
        "minSessionTimeout=" + 2 * ZooKeeperMain.TICK_MS,
        "maxSessionTimeout=120000",
        "dataDir=" + node.config().resolveSibling("data").toAbsolutePath(),
        "clientPort=" + node.port(),
        "clientPortAddress=127.0.0.1",
        "admin.enableServer=false",
        "4lw.commands.whitelist=srvr"));
    for (int to = 0; to < SIZE; to++) {
      lines.add(peers.serverLine(n, to));
    }
    try {
      Files.createDirectories(node.config().resolveSibling("data"));
      Files.writeString(node.config().resolveSibling("data").resolve("myid"), Integer.toString(n + 1));
      Files.writeString(node.config(), String.join("\n", lines) + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the config of ZooKeeper member " + (n + 1) + ": " + e, e);
    }
  }

  /**
   * Waits until every member serves and exactly one leads.
   *
   * @throws IllegalStateException after {@code patience}, or at once if a member's JVM exited,
   *                               naming each member's mode (and the log of one that exited)
   */
  void awaitWhole(Duration patience, String when) {
    long deadline = System.nanoTime() + patience.toNanos();
    while (true) {
      List<String> modes = modes();
      if (modes.stream().allMatch(m -> m.equals("leader") || m.equals("follower"))
          && modes.stream().filter("leader"::equals).count() == 1) {
        return;
      }
      for (QuorumNode node : nodes) {
        if (!node.alive()) {
          throw new IllegalStateException("ZooKeeper ensemble " + when + ": " + node + " exited; modes "
              + describe(modes) + "; the end of its log:\n" + Procs.tail(node.log()));
        }
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("ZooKeeper ensemble " + when + ": not every member served with one"
            + " leader within " + patience + "; modes " + describe(modes) + " (logs under " + dir + ")");
      }
      Procs.sleep(20);
    }
  }

  /** Each member's mode as {@code srvr} reports it, "" for one that serves nothing. */
  public List<String> modes() {
    return nodes.stream().map(QuorumNode::mode).toList();
  }

  private static String describe(List<String> modes) {
    List<String> parts = new ArrayList<>();
    for (int n = 0; n < modes.size(); n++) {
      parts.add("member " + (n + 1) + ": " + (modes.get(n).isEmpty() ? "not serving" : modes.get(n)));
    }
    return String.join(", ", parts);
  }

  /**
   * The index (from 0, in {@link #ports()} order) of the member whose {@code srvr} says
   * {@code Mode: leader}, once every member serves; waits up to 10 s for that.
   */
  public int leader() {
    awaitWhole(Duration.ofSeconds(10), "before a fault");
    List<String> modes = modes();
    int leader = modes.indexOf("leader");
    if (leader < 0 || modes.lastIndexOf("leader") != leader) {
      throw new IllegalStateException("ZooKeeper ensemble: no single leader; modes " + describe(modes));
    }
    return leader;
  }

  /** kill -9 of member {@code node} (from 0); returns once its client port is closed. */
  public void kill(int node) {
    member(node).crash();
  }

  /** Starts member {@code node} (from 0) again on its ports and data; returns once it serves. */
  public void start(int node) {
    member(node).launch();
  }

  /**
   * Cuts member {@code node} (from 0) off from the other members: every path between them goes
   * silent, its clients still reach it.
   */
  public void isolate(int node) {
    member(node);
    peers.isolate(node);
  }

  /** Lets every member reach every other again. */
  public void heal() {
    peers.heal();
  }

  /** The connections open from member {@code from} to member {@code to} (from 0), through their proxies. */
  int peerConnections(int from, int to) {
    return peers.connections(from, to);
  }

  private QuorumNode member(int node) {
    if (node < 0 || node >= SIZE) {
      throw new IllegalArgumentException("member must be 0.." + (SIZE - 1) + ", was " + node);
    }
    return nodes.get(node);
  }

  /** {@code zookeeper://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3?sessionTimeout=<ms>ms}. */
  @Override
  public String url() {
    return url(sessionTimeout);
  }

  /** {@link #url()}, but asking for a session of {@code session} (the members allow up to 120 s). */
  public String url(Duration session) {
    return nodes.stream().map(n -> "127.0.0.1:" + n.port())
        .collect(Collectors.joining(",", "zookeeper://", "?sessionTimeout=" + session.toMillis() + "ms"));
  }

  /** The members' client ports, in the order of {@link #url()}. */
  @Override
  public List<Integer> ports() {
    return nodes.stream().map(QuorumNode::port).toList();
  }

  /** The pid of the first member; {@link #pids()} has them all. */
  @Override
  public long pid() {
    return nodes.get(0).pid();
  }

  /** The members' pids, in the order of {@link #ports()}. */
  public List<Long> pids() {
    return nodes.stream().map(QuorumNode::pid).toList();
  }

  /** SIGSTOP to every member. */
  @Override
  public void pause() {
    nodes.forEach(QuorumNode::pause);
  }

  @Override
  public void resume() {
    nodes.forEach(QuorumNode::resume);
  }

  /** kill -9 of every member, then all three start again on their ports and data. */
  @Override
  public void restart() {
    nodes.forEach(QuorumNode::crash);
    nodes.forEach(QuorumNode::spawn);
    awaitWhole(Procs.START_DEADLINE, "after a restart");
  }

  @Override
  public void close() {
    Reaper.unregister(this);
    RuntimeException failure = null;
    for (QuorumNode node : nodes) {
      try {
        node.close();
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    peers.close();
    Procs.deleteTree(dir);
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "ZooKeeper ensemble " + url() + " (" + dir + ")";
  }
}

package dev.dlock.lab;

import io.lettuce.core.KillArgs;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * A Redis master, one replica and three Sentinels on 127.0.0.1, each a process of its own, as one
 * lab server: {@link #url()} is the {@code redis-sentinel://} URL of the three Sentinels. It
 * returns from {@link #start} only once every Sentinel sees the master, the replica in sync and the
 * other two Sentinels, since a failover needs all of that.
 *
 * <p>Fault F4, failover before replication, is three steps: {@link #cutOffReplica},
 * {@link #failOver} and {@link #rejoin}. After them the set is whole again, with the roles
 * swapped, so the next cell can use it as it is.
 *
 * <p>Why five {@link RedisNode}s rather than embedded-redis's {@code RedisCluster}: the fault needs
 * each process's pid (SIGSTOP, {@code kill -9}) and a node it can start again in another role.
 */
public final class SentinelSet implements LabServer {
  private static final Duration SETTLE = Duration.ofSeconds(30);
  private static final long POLL_MILLIS = 50;

  private final List<RedisNode> sentinels;
  private final RedisAdmin admin;
  private RedisNode master;
  private RedisNode replica;

  private SentinelSet(RedisNode master, RedisNode replica, List<RedisNode> sentinels, RedisAdmin admin) {
    this.admin = admin;
    this.master = master;
    this.replica = replica;
    this.sentinels = List.copyOf(sentinels);
  }

  /** Starts the five processes in new folders under {@code baseDir}; returns once the Sentinels are ready. */
  public static SentinelSet start(Path baseDir) {
    List<RedisNode> started = new ArrayList<>();
    RedisAdmin admin = new RedisAdmin();
    try {
      RedisNode master = RedisNode.startServer(baseDir, 0);
      started.add(master);
      RedisNode replica = RedisNode.startServer(baseDir, master.port());
      started.add(replica);
      // In sync before the Sentinels start: their first INFO of the master then names the replica.
      await("the replica in sync", () -> inSync(admin, master, replica), started);
      List<RedisNode> sentinels = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        RedisNode s = RedisNode.startSentinel(baseDir, master.port());
        started.add(s);
        sentinels.add(s);
      }
      SentinelSet set = new SentinelSet(master, replica, sentinels, admin);
      set.awaitSteady();
      return set;
    } catch (RuntimeException e) {
      admin.close();
      for (RedisNode n : started) {
        try {
          n.close();
        } catch (RuntimeException closing) {
          e.addSuppressed(closing);
        }
      }
      throw e;
    }
  }

  /** The Sentinels' ports: clients ask them for the master, whose own port a proxy would not catch. */
  @Override
  public List<Integer> ports() {
    return sentinels.stream().map(RedisNode::port).toList();
  }

  @Override
  public String url() {
    return sentinels.stream().map(s -> "127.0.0.1:" + s.port())
        .collect(Collectors.joining(",", "redis-sentinel://", "/" + RedisNode.MASTER_NAME));
  }

  /** The master's pid. */
  @Override
  public synchronized long pid() {
    return master.pid();
  }

  /** SIGSTOP of the master only: the Sentinels fail it over if it stays stopped. */
  @Override
  public synchronized void pause() {
    master.pause();
  }

  @Override
  public synchronized void resume() {
    master.resume();
    replica.resume();
  }

  /**
   * Kills all five processes with {@code kill -9}, the Sentinels first so that none acts on the
   * rest, and starts them again on the same ports: the master (empty), its replica, and Sentinels
   * that know nothing of earlier failovers. Returns once the set is ready again.
   */
  @Override
  public synchronized void restart() {
    for (RedisNode n : all()) {
      Procs.killTree(n.pid());
    }
    master.follow(0);
    master.restart();
    replica.follow(master.port());
    replica.restart();
    await("the replica in sync", () -> inSync(admin, master, replica), all());
    for (RedisNode s : sentinels) {
      s.follow(master.port());
      s.restart();
    }
    awaitSteady();
  }

  /**
   * F4's first step: makes sure the replica has every write the master took so far (a write, then
   * {@code WAIT 1}), then cuts it off: its process is paused (SIGSTOP) and the master drops its link
   * ({@code CLIENT KILL TYPE replica}), so nothing the master takes from now on reaches it.
   *
   * @return the master's clock in microseconds right after the cut: every dlock token drawn later
   *     is larger, as a token is at least the server's clock in microseconds
   */
  synchronized long cutOffReplica() {
    awaitSteady();
    long acked = admin.server(master.port(), "SET, WAIT 1", r -> {
      r.set("dlock-lab:cut", "1");
      return r.waitForReplication(1, 5000);
    });
    if (acked < 1) {
      throw new IllegalStateException("the replica " + replica + " did not acknowledge the master's writes within 5 s");
    }
    replica.pause();
    try {
      List<String> time = admin.server(master.port(), "CLIENT KILL TYPE replica, TIME", r -> {
        r.clientKill(KillArgs.Builder.typeSlave());
        return r.time();
      });
      return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    } catch (RuntimeException e) {
      replica.resume();
      throw e;
    }
  }

  /** The master's time to live of {@code key} in milliseconds: -2 if it has no such key, -1 if it never expires. */
  synchronized long ttlMillis(String key) {
    return admin.server(master.port(), "PTTL " + key, r -> r.pttl(key));
  }

  /**
   * F4's second step: {@code kill -9} of the master, SIGCONT of the cut-off replica once the master
   * is gone, and a wait until the replica says it is the master and every Sentinel names it so.
   */
  synchronized void failOver() {
    RedisNode old = master;
    Faults.kill(old.pid());
    Procs.awaitClosed("redis-server", old.port());
    replica.resume();
    master = replica;
    replica = old;
    await("the Sentinels to promote " + master, () -> {
      String role = role(admin, master);
      if (!role.equals("master")) {
        return master + " is still a " + role;
      }
      for (RedisNode s : sentinels) {
        SocketAddress addr = admin.sentinel(s.port(), "SENTINEL get-master-addr-by-name",
            c -> c.getMasterAddrByName(RedisNode.MASTER_NAME));
        if (!(addr instanceof InetSocketAddress a) || a.getPort() != master.port()) {
          return s + " names " + addr + " as master";
        }
      }
      return null;
    }, all());
  }

  /**
   * F4's last step: the killed master starts again, empty (as after a crash without persistence),
   * as a replica of the promoted one; returns once it is in sync.
   */
  synchronized void rejoin() {
    replica.follow(master.port());
    replica.restart();
    await("the old master in sync as a replica", () -> inSync(admin, master, replica), all());
  }

  /**
   * Waits until the master has its replica in sync and every Sentinel sees the master, the replica
   * (up, its link to the master up) and the two other Sentinels.
   */
  private void awaitSteady() {
    await("the Sentinels to see the master, the replica and each other", () -> {
      String sync = inSync(admin, master, replica);
      if (sync != null) {
        return sync;
      }
      for (RedisNode s : sentinels) {
        Map<String, String> m = admin.sentinel(s.port(), "SENTINEL MASTER", c -> c.master(RedisNode.MASTER_NAME));
        if (!String.valueOf(master.port()).equals(m.get("port")) || !"master".equals(m.get("flags"))) {
          return s + " sees master " + m.get("ip") + ":" + m.get("port") + " flags " + m.get("flags")
              + ", not 127.0.0.1:" + master.port();
        }
        if (!"2".equals(m.get("num-other-sentinels"))) {
          return s + " sees " + m.get("num-other-sentinels") + " other Sentinel(s), not 2";
        }
        List<Map<String, String>> replicas =
            admin.sentinel(s.port(), "SENTINEL REPLICAS", c -> c.replicas(RedisNode.MASTER_NAME));
        if (replicas.size() != 1) {
          return s + " sees " + replicas.size() + " replicas, not 1";
        }
        Map<String, String> r = replicas.get(0);
        if (!String.valueOf(replica.port()).equals(r.get("port")) || !"slave".equals(r.get("flags"))
            || !"ok".equals(r.get("master-link-status"))) {
          return s + " sees replica " + r.get("ip") + ":" + r.get("port") + " flags " + r.get("flags")
              + " link " + r.get("master-link-status") + ", not 127.0.0.1:" + replica.port() + " slave ok";
        }
      }
      return null;
    }, all());
  }

  /** Null if {@code master} has {@code replica} online; else what it has. */
  private static String inSync(RedisAdmin admin, RedisNode master, RedisNode replica) {
    String info = admin.server(master.port(), "INFO replication", r -> r.info("replication"));
    if (info.contains("slave0:ip=127.0.0.1,port=" + replica.port() + ",state=online")) {
      return null;
    }
    return master + " has not " + replica + " online as its replica: "
        + info.lines().filter(l -> l.startsWith("role") || l.startsWith("slave")).collect(Collectors.joining(" "));
  }

  private static String role(RedisAdmin admin, RedisNode node) {
    String info = admin.server(node.port(), "INFO replication", r -> r.info("replication"));
    return info.lines().filter(l -> l.startsWith("role:")).map(l -> l.substring(5).trim()).findFirst().orElse("?");
  }

  /**
   * Polls {@code missing} every 50 ms until it says nothing is (null); a node that does not answer
   * counts as missing. Fails after {@link #SETTLE}, naming {@code what} and the last thing missing.
   */
  private static void await(String what, Supplier<String> missing, List<RedisNode> nodes) {
    long deadline = System.nanoTime() + SETTLE.toNanos();
    String last;
    while (true) {
      try {
        last = missing.get();
      } catch (RuntimeException e) {
        last = e.getMessage();
      }
      if (last == null) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("waited " + SETTLE + " for " + what + "; still: " + last + logs(nodes));
      }
      Procs.sleep(POLL_MILLIS);
    }
  }

  /** The end of each node's log, for an error. */
  private static String logs(List<RedisNode> nodes) {
    StringBuilder b = new StringBuilder();
    for (RedisNode n : nodes) {
      String tail = Procs.tail(n.log());
      b.append("\n--- ").append(n).append(":\n").append(tail.substring(Math.max(0, tail.length() - 1500)));
    }
    return b.toString();
  }

  private List<RedisNode> all() {
    List<RedisNode> all = new ArrayList<>(sentinels);
    all.add(master);
    all.add(replica);
    return all;
  }

  @Override
  public synchronized void close() {
    RuntimeException failure = null;
    admin.close();
    for (RedisNode n : all()) {
      try {
        n.close();
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "Sentinel set " + url();
  }
}

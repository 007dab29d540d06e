package dev.dlock.zookeeper;

import dev.dlock.spi.Grant;
import org.apache.zookeeper.Watcher;

/**
 * One owner's place in one lock's queue: its node, the session that created it, and the one
 * watcher it puts on its predecessor. Why one watcher object per contender: ZooKeeper keeps a
 * watcher once per path however often it is set, so a re-check after a poll adds no second
 * wake-up. Fields change only on the thread competing for the owner (the engine lets one thread
 * per owner at a time), and are read by event threads, hence volatile.
 */
final class Contender {
  final String name;
  final String owner;
  final String dir;
  volatile Watcher watcher;
  /** The node's full path once created, else null. */
  volatile String node;
  /** The czxid of the node: the fencing token. */
  volatile long token;
  /** The session the node belongs to; it vanishes with it. */
  volatile long sessionId;
  /** A create was sent whose answer never came: the node may exist and must be looked for. */
  volatile boolean uncertain;
  volatile boolean granted;
  volatile boolean lost;

  Contender(String name, String owner, String dir) {
    this.name = name;
    this.owner = owner;
    this.dir = dir;
  }

  Grant grant() {
    return new Grant(name, owner, token);
  }

  boolean holds(Grant g) {
    return granted && !lost && token == g.token() && name.equals(g.name());
  }
}

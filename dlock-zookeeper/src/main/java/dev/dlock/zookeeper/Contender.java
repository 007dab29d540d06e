package dev.dlock.zookeeper;

import dev.dlock.spi.Grant;
import dev.dlock.spi.LockKind;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.Watcher;
import org.jspecify.annotations.Nullable;

/**
 * One owner's place in one lock's queue: its node, the session that created it, and the one
 * watcher it puts on its predecessor. Why one watcher object per contender: ZooKeeper keeps a
 * watcher once per path however often it is set, so a re-check after a poll adds no second
 * wake-up. Fields change only on the thread competing for the owner (the engine lets one thread
 * per owner at a time), and are read by event threads, hence volatile.
 */
final class Contender {
  /** The directory data of every kind but the semaphore; ZooKeeper only reads it. */
  static final byte[] NO_DATA = new byte[0];

  final String name;
  final String owner;
  final LockKind kind;
  final String dir;
  /** The name of its node up to the sequence ZooKeeper appends; found again by it after a lost reply. */
  final String prefix;
  /** The data of its directory when this contender creates it: a semaphore's permit count. */
  final byte[] dirData;
  /** For a semaphore, the permits it was asked with; else 1. */
  final int permits;
  /** Set by the backend right after it makes the contender; null only until then. */
  volatile @Nullable Watcher watcher;
  /** The node's full path once created, else null. */
  volatile @Nullable String node;
  /** The node's czxid, which orders it among every node of every lock. */
  volatile long zxid;
  /** The token of its grant, made from {@link #zxid} by the recipe that granted it. */
  volatile long token;
  /** The session the node belongs to; it vanishes with it. */
  volatile long sessionId;
  /** A create was sent whose answer never came: the node may exist and must be looked for. */
  volatile boolean uncertain;
  /** The node it watches, and whether that node was the head of the queue when the watch was set. */
  volatile @Nullable String watched;
  volatile boolean watchedIsHead;
  /**
   * The watched head was deleted: this contender is first now, as no node made later can rank
   * ahead of it, so it holds without listing the queue again.
   */
  volatile boolean headGone;
  volatile boolean granted;
  /**
   * The czxid of the node whose guard watch ({@link HeldNodes}) is known to be in place: an exists
   * with that watch was answered with this node, and no event has fired the watch since; else 0.
   * Shared with the owners a grant is handed off to, as they hold the same node under one watch.
   */
  AtomicLong guarded = new AtomicLong();
  volatile boolean lost;
  /** Its own delete is under way: the deletion of its node is no loss. */
  volatile boolean leaving;
  /** For a downgraded reader, the token of the write grant it sits beside; else 0. */
  volatile long downgradeOf;

  Contender(String name, String owner, String dir) {
    this(name, owner, LockKind.EXCLUSIVE, dir, Nodes.prefix(owner), NO_DATA, 1);
  }

  Contender(String name, String owner, LockKind kind, String dir, String prefix, byte[] dirData,
      int permits) {
    this.name = name;
    this.owner = owner;
    this.kind = kind;
    this.dir = dir;
    this.prefix = prefix;
    this.dirData = dirData;
    this.permits = permits;
  }

  /** Its node's path where it must have one: once queued, and so once granted. */
  String createdNode() {
    String n = node;
    if (n == null) {
      throw new IllegalStateException(String.format("%s has no node for %s lock '%s'", owner, kind, name));
    }
    return n;
  }

  Grant grant() {
    return new Grant(name, owner, token, kind);
  }

  /** True if this contender is the one {@code g} was made to (same name, kind and token). */
  boolean matches(Grant g) {
    return granted && token == g.token() && name.equals(g.name()) && kind == g.kind();
  }

  boolean holds(Grant g) {
    return matches(g) && !lost;
  }

  /** Marks it lost; true the first time, so that each loss is reported once whoever finds it. */
  synchronized boolean claimLoss() {
    if (lost) {
      return false;
    }
    lost = true;
    return true;
  }
}

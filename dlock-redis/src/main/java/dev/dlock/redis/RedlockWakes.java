package dev.dlock.redis;

import dev.dlock.redis.ScriptCalls.RedlockRelease;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This client's Redlock waiters, and which nodes told each one, since its last try, that its lock
 * is free there. Why count nodes: one node's message says only that the lock is free on that node,
 * and a grant needs a majority; so a waiter is woken when the majority-th node tells it, which is
 * also once per release, however many nodes the release freed. Why per release (each message
 * names the release that sent it, the same number on every node): the messages of one release
 * reach the client at different times, and the late ones of an earlier release, added to the
 * first ones of the next, would make a majority while the lock is still held on most nodes, a
 * wake whose retry fails and a second wake for one release. A wake is only a hint: a lost or late
 * message leaves the waiter to its retry hint, and the retry is the full majority acquire.
 *
 * <p>Why the arrival stamp: each node tells only its oldest waiter, and the nodes agree on which
 * that is only if every node orders the waiters by the same number. The client's wall clock at the
 * owner's first try gives one; it decides no expiry, only the order, and a clock skewed across
 * hosts only makes that order less fair. A message for an owner that no longer waits here (it gave
 * up, or was granted, and the node had not heard yet) is passed on: that node drops the owner and
 * tells its next waiter if the lock is still free, so no waiter behind it waits for a release that
 * came and went.
 */
final class RedlockWakes {
  private static final Logger log = LoggerFactory.getLogger(RedlockWakes.class);

  /**
   * An owner's wait: the name, its arrival stamp, and for each release the nodes that told it of
   * that release since its last try. Never changed once made: a message makes a new one.
   */
  private record Waiting(String name, long arrival, Map<Long, BitSet> toldBy) {}

  private final int majority;
  private final List<RedlockNode> nodes;
  private final ScriptCalls script;
  private final ConcurrentHashMap<String, Waiting> waiting = new ConcurrentHashMap<>();
  private volatile Consumer<String> released = name -> {};

  RedlockWakes(int majority, List<RedlockNode> nodes, ScriptCalls script) {
    this.majority = majority;
    this.nodes = nodes;
    this.script = script;
  }

  /** From now on, a waiter a majority told is woken through {@code released} (the lock name). */
  void start(Consumer<String> released) {
    this.released = released;
  }

  /**
   * Records a try of {@code owner}, which will wait for {@code name}, before it is sent: what nodes
   * told it before counts no more. Returns the owner's arrival stamp, the same for every try of it.
   */
  long trying(String owner, String name) {
    return waiting.compute(owner, (o, w) -> new Waiting(name,
        w != null && w.name().equals(name) ? w.arrival() : stamp(), Map.of())).arrival();
  }

  /** {@code owner} waits no more: it was granted, or gave up. */
  void done(String owner) {
    waiting.remove(owner);
  }

  /**
   * Node {@code node} told {@code owner} that the lock is free there, with {@code message}: the
   * number of the release that freed it, a space, and the lock name (see redlock-release.lua).
   */
  void told(int node, String message, String owner) {
    int space = message.indexOf(' ');
    long release;
    try {
      release = Long.parseLong(message.substring(0, Math.max(space, 0)));
    } catch (NumberFormatException e) {
      return; // not one of dlock's messages
    }
    String name = message.substring(space + 1);
    boolean[] found = {false};
    boolean[] wake = {false};
    waiting.computeIfPresent(owner, (o, w) -> {
      found[0] = w.name().equals(name);
      BitSet before = w.toldBy().get(release);
      if (!found[0] || before != null && before.get(node)) {
        return w;
      }
      BitSet nodes = before == null ? new BitSet() : (BitSet) before.clone();
      nodes.set(node);
      wake[0] = nodes.cardinality() == majority;
      Map<Long, BitSet> toldBy = new HashMap<>(w.toldBy());
      toldBy.put(release, nodes);
      return new Waiting(name, w.arrival(), toldBy);
    });
    if (wake[0]) {
      released.accept(name);
    } else if (!found[0]) {
      RedlockNode n = nodes.get(node);
      n.run(script.redlockRelease(name, owner, RedlockRelease.PASS, release)).whenComplete((left, e) -> {
        if (e != null) {
          log.debug("dlock: could not pass on the wake of lock '{}' for {} on redlock node {}", name,
              owner, n.address(), e);
        }
      });
    }
  }

  /** A number for a release round, sent to every node, that its wake-ups carry back. */
  static long newRelease() {
    return ThreadLocalRandom.current().nextLong(Long.MAX_VALUE);
  }

  /** Microseconds of the wall clock: an order for waiters that every node can share. */
  private static long stamp() {
    return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
  }
}

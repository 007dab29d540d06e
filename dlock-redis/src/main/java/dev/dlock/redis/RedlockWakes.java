package dev.dlock.redis;

import dev.dlock.redis.ScriptCalls.RedlockRelease;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This client's Redlock waiters, and which nodes told each one, since its last try, that its lock
 * is free there. Why count nodes: one node's message says only that the lock is free on that node,
 * and a grant needs a majority; so a waiter is woken when the majority-th node tells it, which is
 * also once per release, however many nodes the release freed. A wake is only a hint: a lost or
 * late message leaves the waiter to its retry hint, and the retry is the full majority acquire.
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

  /** An owner's wait: the name, its arrival stamp, and the nodes that told it since its last try. */
  private record Waiting(String name, long arrival, BitSet toldBy) {}

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
        w != null && w.name().equals(name) ? w.arrival() : stamp(), new BitSet())).arrival();
  }

  /** {@code owner} waits no more: it was granted, or gave up. */
  void done(String owner) {
    waiting.remove(owner);
  }

  /** Node {@code node} told {@code owner} that {@code name} is free there. */
  void told(int node, String name, String owner) {
    boolean[] found = {false};
    boolean[] wake = {false};
    waiting.computeIfPresent(owner, (o, w) -> {
      if (!w.name().equals(name) || w.toldBy().get(node)) {
        found[0] = w.name().equals(name);
        return w;
      }
      found[0] = true;
      BitSet toldBy = (BitSet) w.toldBy().clone();
      toldBy.set(node);
      wake[0] = toldBy.cardinality() == majority;
      return new Waiting(name, w.arrival(), toldBy);
    });
    if (wake[0]) {
      released.accept(name);
    } else if (!found[0]) {
      RedlockNode n = nodes.get(node);
      n.run(script.redlockRelease(name, owner, RedlockRelease.PASS)).whenComplete((left, e) -> {
        if (e != null) {
          log.debug("dlock: could not pass on the wake of lock '{}' for {} on redlock node {}", name,
              owner, n.address(), e);
        }
      });
    }
  }

  /** Microseconds of the wall clock: an order for waiters that every node can share. */
  private static long stamp() {
    return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
  }
}

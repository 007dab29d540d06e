package dev.dlock.redis;

import static dev.dlock.redis.RedisBackend.millis;

import dev.dlock.spi.Grant;
import dev.dlock.spi.LockKind;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The renewal rounds of the single-server backend. Why it looks like this: a round renews every
 * lease the client holds, and with 100,000 of them one script call would block the server for
 * seconds and outlast the command timeout, so the round is cut into calls of at most
 * {@link #CHUNK} grants, sent pipelined, so that the round costs about one round trip and the
 * server stays free for others between calls. On a cluster a call's keys must share a slot, so the
 * grants are grouped by slot first; exclusive grants (renew.lua) and the other kinds
 * (renew-kinds.lua) go in calls of their own. With the replica policy on, a slot whose renewals
 * too few replicas acknowledged fails the round, so the engine counts none of its extensions and
 * tries again at the next period; the leases run out in the client's view if it never succeeds.
 */
final class Renewals {
  /**
   * The most grants one script call renews. Why 1,000: a call costs the server two commands per
   * grant, a few milliseconds for 1,000 (6 ms on a busy 2-core machine), about as long as a script
   * should keep other clients waiting; and 1,000 grants a call meets the target of one command per
   * 1,000 leases.
   */
  static final int CHUNK = 1_000;

  private final Calls calls;
  private final ScriptCalls script;
  private final Keys keys;
  private final Replicas replicas;
  private final boolean cluster;

  /** @param cluster whether the server is a cluster, whose scripts take keys of one slot only */
  Renewals(Calls calls, ScriptCalls script, Keys keys, Replicas replicas, boolean cluster) {
    this.calls = calls;
    this.script = script;
    this.keys = keys;
    this.replicas = replicas;
    this.cluster = cluster;
  }

  /** One script call of a round, and the grants it renews, in the order of its keys. */
  private record Chunk(List<Grant> grants, ScriptCall<List<Object>> call) {}

  /** Renews {@code grants} for {@code leaseTime}; returns the ones no longer held. */
  Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    Collection<List<Grant>> slots = cluster
        ? grants.stream().collect(Collectors.groupingBy(g -> SlotHash.getSlot(keys.lock(g.name())))).values()
        : List.of(List.copyOf(grants));
    List<Chunk> chunks = new ArrayList<>();
    for (List<Grant> slot : slots) {
      chunk(slot, true, millis(leaseTime), chunks);
      chunk(slot, false, millis(leaseTime), chunks);
    }
    List<List<Object>> replies = calls.runAll("renew " + grants.size() + " lease(s)",
        chunks.stream().map(Chunk::call).toList());
    Set<Grant> gone = new HashSet<>();
    for (int i = 0; i < chunks.size(); i++) {
      Chunk c = chunks.get(i);
      for (int position : ForeignValue.lost(replies.get(i), c.call().keys(), c.grants(), calls.server())) {
        gone.add(c.grants().get(position - 1));
      }
    }
    if (replicas.on()) {
      confirm(slots, gone);
    }
    return gone;
  }

  /** Adds the calls that renew the exclusive grants of {@code slot}, or the others. */
  private void chunk(List<Grant> slot, boolean exclusive, long leaseMillis, List<Chunk> chunks) {
    List<Grant> these = slot.stream().filter(g -> (g.kind() == LockKind.EXCLUSIVE) == exclusive).toList();
    for (int from = 0; from < these.size(); from += CHUNK) {
      List<Grant> part = these.subList(from, Math.min(these.size(), from + CHUNK));
      chunks.add(new Chunk(part, exclusive ? script.renew(part, leaseMillis)
          : script.renewKinds(part, leaseMillis)));
    }
  }

  /** Fails the round if too few replicas acknowledged the renewals of a slot that renewed some. */
  private void confirm(Collection<List<Grant>> slots, Set<Grant> gone) {
    int unacknowledged = 0;
    for (List<Grant> slot : slots) {
      int renewed = (int) slot.stream().filter(g -> !gone.contains(g)).count();
      if (renewed > 0 && !replicas.acknowledged(keys.lock(slot.get(0).name()))) {
        unacknowledged += renewed;
      }
    }
    if (unacknowledged > 0) {
      throw replicas.renewalUnacknowledged(unacknowledged);
    }
  }
}

package dev.dlock.redis;

import dev.dlock.BackendUnavailableException;
import dev.dlock.LockException;
import dev.dlock.internal.CallTimeout;
import dev.dlock.redis.ScriptCalls.InspectReply;
import dev.dlock.spi.LockInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * Reads locks back from the Redlock nodes. Why by majority: a single node may hold a stale or
 * partial grant (a minority a failed acquire has not yet cleaned up, a node that restarted), so a
 * lock is reported held only when a majority of nodes name the same owner; its token is the
 * highest counter among them (the grant's T after phase 2) and its time left the smallest.
 */
final class RedlockInspector {
  private final RedlockBackend backend;

  RedlockInspector(RedlockBackend backend) {
    this.backend = backend;
  }

  Optional<LockInfo> inspect(String name) {
    ScriptCall<Optional<InspectReply>> inspect = backend.script().inspect(name);
    RedlockRound<Optional<InspectReply>> r = RedlockRound.send(backend.nodes(), backend.clock(),
        n -> n.run(inspect)).await(backend.nodeTimeout());
    LockException foreign = backend.foreign(r, inspect.keys(), "inspect lock '" + name + "'");
    if (foreign != null) {
      throw foreign;
    }
    if (r.answers() < backend.majority()) {
      throw backend.unavailable("inspect lock '" + name + "'", r);
    }
    Map<String, long[]> byOwner = new HashMap<>(); // owner -> {nodes, highest token, least ms left}
    for (int i = 0; i < r.size(); i++) {
      if (!r.counts(i) || r.reply(i).isEmpty()) {
        continue;
      }
      InspectReply reply = r.reply(i).get();
      long left = Math.max(0, reply.ttlMillis());
      long token = reply.token();
      long[] seen = byOwner.computeIfAbsent(reply.owner(), o -> new long[] {0, Long.MIN_VALUE, Long.MAX_VALUE});
      seen[0]++;
      seen[1] = Math.max(seen[1], token);
      seen[2] = Math.min(seen[2], left);
    }
    for (Map.Entry<String, long[]> e : byOwner.entrySet()) {
      long[] seen = e.getValue();
      if (seen[0] >= backend.majority()) {
        return Optional.of(new LockInfo(name, e.getKey(), seen[1], Duration.ofMillis(seen[2])));
      }
    }
    return Optional.empty();
  }

  /** SCANs every node that answers, merges the names, and inspects each. */
  List<LockInfo> inspectAll() {
    TreeSet<String> names = new TreeSet<>();
    int scanned = 0;
    RuntimeException failure = null;
    for (RedlockNode n : backend.nodes()) {
      try {
        scan(n, names);
        scanned++;
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    if (scanned < backend.majority()) {
      throw new BackendUnavailableException(String.format(
          "redlock: only %d of %d nodes could be listed, %d needed: %s", scanned,
          backend.nodes().size(), backend.majority(), backend.describe()), failure);
    }
    List<LockInfo> all = new ArrayList<>();
    for (String name : names) {
      inspect(name).ifPresent(all::add);
    }
    return all;
  }

  private void scan(RedlockNode n, java.util.Set<String> names) {
    backend.keys().scanNames((from, args) -> await(n.call(c -> from == null ? c.scan(args)
        : c.scan(from, args))), names);
  }

  private <T> T await(CompletableFuture<T> f) {
    try {
      // join() ignores interrupts; the timeout, never past the caller's deadline, bounds it.
      long bound = CallTimeout.boundNanos(backend.nodeTimeout().plusSeconds(1).toNanos());
      return f.orTimeout(bound, TimeUnit.NANOSECONDS).join();
    } catch (CompletionException e) {
      throw new BackendUnavailableException(String.format("redlock: a node failed to SCAN: %s",
          Calls.reason(e.getCause() == null ? e : e.getCause())), e.getCause());
    }
  }
}

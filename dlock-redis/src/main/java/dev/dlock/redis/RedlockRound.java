package dev.dlock.redis;

import dev.dlock.internal.CallTimeout;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One command sent to every node at once, and what came back by the deadline. Why a round and
 * not N calls: Redlock's time budget is per round, so one slow or dead node costs the round at
 * most the node timeout, never the sum. An answer counts towards a majority only if the node was
 * allowed to vote when the round began and did not disconnect or reconnect during it (see
 * {@link RedlockNode#epoch()}); an answer that does not count still tells what the node holds,
 * which the clean-up uses. The wait ignores interrupts and keeps the flag, as a release must not
 * fail because the flag is set.
 */
final class RedlockRound<T> {
  private final List<RedlockNode> nodes;
  private final CompletableFuture<T>[] replies;
  private final long[] epochs;
  private final boolean[] voting;
  /** How long {@link #await} waited and why, for the failure of nodes that did not answer. */
  private String waited = "no time";

  @SuppressWarnings({"unchecked", "rawtypes"}) // an array of a generic type
  private RedlockRound(List<RedlockNode> nodes) {
    this.nodes = nodes;
    this.replies = new CompletableFuture[nodes.size()];
    this.epochs = new long[nodes.size()];
    this.voting = new boolean[nodes.size()];
  }

  /** Sends {@code command} to every node in {@code nodes}; a null entry is a node not asked. */
  static <T> RedlockRound<T> send(List<RedlockNode> nodes, long now,
      Function<RedlockNode, CompletableFuture<T>> command) {
    RedlockRound<T> r = new RedlockRound<>(nodes);
    for (int i = 0; i < nodes.size(); i++) {
      RedlockNode n = nodes.get(i);
      if (n == null) {
        r.replies[i] = CompletableFuture.failedFuture(new IllegalStateException("not asked"));
        continue;
      }
      r.epochs[i] = n.epoch();
      r.voting[i] = n.votes(now);
      try {
        r.replies[i] = command.apply(n);
      } catch (RuntimeException e) {
        r.replies[i] = CompletableFuture.failedFuture(e);
      }
    }
    return r;
  }

  /**
   * Waits until every node answered or {@code timeout} passed, whichever comes first; never past
   * the caller's deadline ({@link CallTimeout}), so a whole operation of several rounds keeps it.
   */
  RedlockRound<T> await(Duration timeout) {
    RedlockNode clockOf = nodes.stream().filter(Objects::nonNull).findFirst().orElse(null);
    if (clockOf == null) {
      return this; // nobody was asked
    }
    long bound = CallTimeout.boundNanos(timeout.toNanos());
    long deadline = clockOf.now() + bound;
    waited = Duration.ofNanos(bound).toMillis() + " ms"
        + (bound < timeout.toNanos() ? " (the caller's deadline)" : "");
    boolean interrupted = false;
    try {
      for (CompletableFuture<T> f : replies) {
        while (!f.isDone()) {
          long left = deadline - clockOf.now();
          if (left <= 0) {
            return this;
          }
          try {
            f.get(left, TimeUnit.NANOSECONDS);
          } catch (InterruptedException e) {
            interrupted = true;
          } catch (ExecutionException | TimeoutException e) {
            break; // a failure is an answer of its own; a timeout ends the wait at the loop's check
          }
        }
      }
      return this;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  int size() {
    return replies.length;
  }

  RedlockNode node(int i) {
    return nodes.get(i);
  }

  /** True if node {@code i} replied (a failure is no reply). */
  boolean answered(int i) {
    CompletableFuture<T> f = replies[i];
    return f.isDone() && !f.isCompletedExceptionally();
  }

  /** How many nodes replied. */
  int answers() {
    int n = 0;
    for (int i = 0; i < replies.length; i++) {
      n += answered(i) ? 1 : 0;
    }
    return n;
  }

  /** True if node {@code i} replied and its reply counts towards a majority. */
  boolean counts(int i) {
    return answered(i) && voting[i] && nodes.get(i).epoch() == epochs[i];
  }

  T reply(int i) {
    return replies[i].join();
  }

  /**
   * The first failure of the round, for the cause of an exception: a node's error, or else the
   * timeout of the nodes that gave no answer; null if every node answered.
   */
  @Nullable Throwable failure() {
    StringJoiner silent = new StringJoiner(", ");
    for (int i = 0; i < replies.length; i++) {
      Throwable e = failure(i);
      if (e != null) {
        return e;
      } else if (!replies[i].isDone()) {
        silent.add(nodes.get(i).address());
      }
    }
    return silent.length() == 0 ? null
        : new TimeoutException("no answer from redlock node(s) " + silent + " within " + waited);
  }

  /** How node {@code i}'s command failed; null if it replied or is still out. */
  @Nullable Throwable failure(int i) {
    if (!replies[i].isCompletedExceptionally()) {
      return null;
    }
    try {
      replies[i].join();
      return null;
    } catch (RuntimeException e) {
      return e.getCause() != null ? e.getCause() : e;
    }
  }
}

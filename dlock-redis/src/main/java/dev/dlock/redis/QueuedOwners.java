package dev.dlock.redis;

import io.lettuce.core.RedisFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * This client's owners that may hold a place in the queue of an exclusive lock, and the retry a
 * wake-up sent for each before its thread woke. Why the early retry lives here: the pub/sub I/O
 * thread sends it inside the map's per-owner compute, and a cancel removes the owner's entry
 * first, so the retry always goes out before any cancel of that owner, whose script then frees
 * whatever the retry was granted; and the waiting thread takes it under the same compute, so it
 * is collected once.
 */
final class QueuedOwners {
  /** An owner's wait: the name, its lease in milliseconds, and the early retry, if one was sent. */
  private record Waiting(String name, byte[] leaseMs, RedisFuture<Object> early, long sentAt) {}

  /** An early retry taken by its waiting thread: the reply, its lease, and when it was sent. */
  record Early(RedisFuture<Object> reply, byte[] leaseMs, long sentAt) {}

  private final ConcurrentHashMap<String, Waiting> queued = new ConcurrentHashMap<>();

  /**
   * Records {@code owner} as waiting for {@code name}, before the call that may queue it, since a
   * wake-up may arrive before that call's answer. True if it was recorded already: it may have a
   * place in the queue.
   */
  boolean waits(String owner, String name, byte[] leaseMs) {
    return queued.put(owner, new Waiting(name, leaseMs, null, 0)) != null;
  }

  /** Takes the early retry sent for {@code owner}'s wait on {@code name}, or null if none was. */
  Early takeEarly(String owner, String name) {
    Early[] taken = {null};
    queued.computeIfPresent(owner, (o, w) -> {
      if (w.early() == null || !w.name().equals(name)) {
        return w;
      }
      taken[0] = new Early(w.early(), w.leaseMs(), w.sentAt());
      return new Waiting(w.name(), w.leaseMs(), null, 0);
    });
    return taken[0];
  }

  /** What sends an owner's retry: given the name and lease, it returns the reply to come. */
  interface Sender {
    RedisFuture<Object> send(String name, byte[] leaseMs);
  }

  /**
   * A wake-up for {@code owner} on {@code name}: if that owner waits for it here and has no retry
   * out, sends one through {@code sender} (stamped by {@code clock}); a retry that cannot be sent
   * is left to the waiting thread. True if the owner waits for {@code name} here.
   */
  boolean woken(String owner, String name, boolean send, Sender sender, LongSupplier clock) {
    boolean[] waiting = {false};
    queued.computeIfPresent(owner, (o, w) -> {
      if (!w.name().equals(name)) {
        return w;
      }
      waiting[0] = true;
      if (w.early() != null || !send) {
        return w;
      }
      long sentAt = clock.getAsLong();
      try {
        return new Waiting(name, w.leaseMs(), sender.send(name, w.leaseMs()), sentAt);
      } catch (RuntimeException e) {
        return w;
      }
    });
    return waiting[0];
  }

  void remove(String owner) {
    queued.remove(owner);
  }

  /** Each owner and the name it waits for. */
  void forEach(BiConsumer<String, String> action) {
    queued.forEach((owner, w) -> action.accept(owner, w.name()));
  }

  void clear() {
    queued.clear();
  }
}

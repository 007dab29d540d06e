package dev.dlock.engine;

import dev.dlock.LockException;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The client's table of per-name state and whether the client is still open. A {@link NameState}
 * lives in the map while a waiter or a hold references it; owners are numbered here so that every
 * grant gets one of its own.
 */
final class Names {
  private final String clientId;
  // The client's id and ':', joined once rather than at every grant.
  private final String ownerPrefix;
  // Keyed by Spec.key: the bare name for exclusive locks, a (kind, name) record for the others.
  private final ConcurrentHashMap<Object, NameState> names = new ConcurrentHashMap<>();
  private final AtomicLong ownerSeq = new AtomicLong();
  private volatile boolean closed;
  private volatile boolean abandoned;

  Names(String clientId) {
    this.clientId = clientId;
    this.ownerPrefix = clientId + ':';
  }

  @Nullable NameState existing(Object key) {
    return names.get(key);
  }

  Collection<NameState> all() {
    return names.values();
  }

  NameState enter(Spec spec) {
    return names.compute(spec.key(), (k, st) -> {
      if (st == null) {
        st = new NameState(k, spec.name(), spec.kind());
      }
      st.refs++;
      return st;
    });
  }

  void exit(NameState st) {
    names.computeIfPresent(st.key, (k, cur) -> cur != st || --cur.refs > 0 ? cur : null);
  }

  String newOwner() {
    return ownerPrefix.concat(Long.toString(ownerSeq.incrementAndGet()));
  }

  /** The hold the current thread has on {@code spec}'s lock, or null. */
  @Nullable Hold heldByCurrentThread(Spec spec) {
    NameState st = names.get(spec.key());
    return st == null ? null : st.heldBy(Thread.currentThread());
  }

  void close(boolean abandon) {
    abandoned = abandon;
    closed = true;
  }

  boolean isClosed() {
    return closed;
  }

  boolean isAbandoned() {
    return abandoned;
  }

  void checkOpen(String name) {
    if (closed) {
      throw closedException(name);
    }
  }

  LockException closedException(String name) {
    return new LockException(String.format("client %s is %s; lock '%s' is not available", clientId,
        abandoned ? "abandoned" : "closed", name));
  }
}

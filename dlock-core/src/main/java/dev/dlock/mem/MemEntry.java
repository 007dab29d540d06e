package dev.dlock.mem;

import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * One name on a {@link MemServer}: its holders and its FIFO of waiting owners, for every kind of
 * lock. Mutated only inside the server map's compute, which serialises all operations on one name.
 * Why one rule for all kinds: a request is granted when it is compatible with the holders and,
 * unless the kind is plain exclusive, with every live waiter queued ahead of it; the same rule,
 * run over the queue after a release, picks the waiters to notify. So fairness, readers batching
 * behind a writer and permits all come from one place.
 */
final class MemEntry {
  final LinkedHashMap<String, Holder> holders = new LinkedHashMap<>();
  /** Waiting owner to its request; insertion order is FIFO. */
  final LinkedHashMap<String, Waiter> waiters = new LinkedHashMap<>();
  /** The permit count of a semaphore, set by its first request; 0 otherwise. */
  int permits;

  static final class Holder {
    final LockKind kind;
    final long token;
    long expiresAt;

    Holder(LockKind kind, long token, long expiresAt) {
      this.kind = kind;
      this.token = token;
      this.expiresAt = expiresAt;
    }
  }

  record Waiter(String clientId, LockKind kind, long lastSeen) {}

  /** Drops holders whose lease ran out and waiters that are gone or stopped asking. */
  void prune(long now, Predicate<Waiter> dead) {
    holders.values().removeIf(h -> now - h.expiresAt >= 0);
    waiters.values().removeIf(dead);
  }

  /** True if {@code r} may be granted now; {@link #prune} first. */
  boolean grantable(LockRequest r) {
    if (!compatibleWithHolders(r.kind(), r.writer())) {
      return false;
    }
    if (r.kind() == LockKind.EXCLUSIVE || r.writer() != null) {
      return true; // no queue order promised; a downgrade must not wait behind other writers
    }
    int ahead = 0;
    for (Map.Entry<String, Waiter> w : waiters.entrySet()) {
      if (w.getKey().equals(r.owner())) {
        break;
      }
      if (r.kind() == LockKind.READ && w.getValue().kind() == LockKind.WRITE
          || r.kind() == LockKind.WRITE || r.kind() == LockKind.FAIR) {
        return false;
      }
      ahead++;
    }
    return r.kind() != LockKind.PERMIT || holders.size() + ahead < permits;
  }

  private boolean compatibleWithHolders(LockKind kind, @Nullable String writer) {
    return switch (kind) {
      case EXCLUSIVE, FAIR, WRITE -> holders.isEmpty();
      case READ -> holders.entrySet().stream()
          .noneMatch(h -> h.getValue().kind == LockKind.WRITE && !h.getKey().equals(writer));
      case PERMIT -> holders.size() < permits;
    };
  }

  /**
   * The clients to notify now: the head of the queue if it may be granted, then each next waiter
   * that may be granted beside it: readers behind a reader, and waiters for the permits still free.
   */
  Set<String> clientsToWake() {
    Set<String> clients = new LinkedHashSet<>();
    boolean writerHeld = holders.values().stream().anyMatch(h -> h.kind == LockKind.WRITE);
    int free = permits - holders.size();
    for (Waiter w : waiters.values()) {
      boolean go = switch (w.kind()) {
        case EXCLUSIVE, FAIR, WRITE -> clients.isEmpty() && holders.isEmpty();
        case READ -> !writerHeld;
        case PERMIT -> free-- > 0;
      };
      if (!go) {
        break;
      }
      clients.add(w.clientId());
      if (w.kind() != LockKind.READ && w.kind() != LockKind.PERMIT) {
        break;
      }
    }
    return clients;
  }

  /** The longest-held holder, for the "held" answer and inspection; null if none. */
  Map.@Nullable Entry<String, Holder> firstHolder() {
    Iterator<Map.Entry<String, Holder>> it = holders.entrySet().iterator();
    return it.hasNext() ? it.next() : null;
  }

  boolean isEmpty() {
    return holders.isEmpty() && waiters.isEmpty();
  }
}

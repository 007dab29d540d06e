package dev.dlock.mem;

import java.util.LinkedHashMap;

/**
 * One name on a {@link MemServer}: its holder and its FIFO of waiting owners. Mutated only inside
 * the server map's compute, which serialises all operations on one name.
 */
final class MemEntry {
  String owner;
  long token;
  long expiresAt;
  /** Waiting owner to its client id and the server time it last asked. Insertion order is FIFO. */
  final LinkedHashMap<String, Waiter> waiters = new LinkedHashMap<>();

  record Waiter(String clientId, long lastSeen) {}

  boolean heldAt(long now) {
    return owner != null && now - expiresAt < 0;
  }

  boolean isEmpty() {
    return owner == null && waiters.isEmpty();
  }
}

package dev.dlock.jdbc;

import dev.dlock.spi.Ticker;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This client's owners that hold a place in the database's waiter queue, and for which name. Why
 * keep it locally: it tells tryAcquire whether a place must be taken (and the race with a release
 * re-checked), tells grant and cancel whether there is a queue row to delete, lets the inbox
 * thread heartbeat only while someone waits and notice which rows a release removed, and deletes
 * this client's rows when it closes. The engine lets one owner per name and client wait at a time.
 */
final class Waiters {
  private final ConcurrentHashMap<String, String> nameByOwner = new ConcurrentHashMap<>();
  // The system clock until the backend starts, then the engine's, so virtual time reaches here too.
  private volatile Ticker ticker = Ticker.system();
  private volatile long lastArmedNanos = ticker.read();
  private volatile boolean everArmed;

  /** Times the waits by {@code ticker} from now on: the engine's, given at start. */
  void timeBy(Ticker ticker) {
    this.ticker = ticker;
    lastArmedNanos = ticker.read();
  }

  boolean isArmed(String owner) {
    return nameByOwner.containsKey(owner);
  }

  /** Records a queue row that is committed. */
  void armed(String name, String owner) {
    nameByOwner.put(owner, name);
    lastArmedNanos = ticker.read();
    everArmed = true;
  }

  /** Whether this client ever took a place in the queue, so closing has rows to delete. */
  boolean everArmed() {
    return everArmed;
  }

  /** Forgets the owner's place; true if it had one, which only one caller ever sees. */
  boolean disarm(String owner) {
    return nameByOwner.remove(owner) != null;
  }

  /** Forgets the places held for {@code name} (woken by a notification); true if there were any. */
  boolean disarmName(String name) {
    return nameByOwner.values().removeIf(name::equals);
  }

  /** Owner to name, at this moment. */
  Map<String, String> snapshot() {
    return Map.copyOf(nameByOwner);
  }

  Set<String> names() {
    return Set.copyOf(nameByOwner.values());
  }

  boolean isEmpty() {
    return nameByOwner.isEmpty();
  }

  long nanosSinceLastArmed() {
    return ticker.read() - lastArmedNanos;
  }
}

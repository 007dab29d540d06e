package dev.dlock.lincheck;

import java.util.HashMap;
import java.util.Map;

/**
 * The sequential specification the engine is checked against: a table of lock names, each with at
 * most one holder at the server, and each owner's (thread's) local hold count. Holds stay in the table after
 * their lease ran out at the server, as the engine keeps them until it learns of the loss; the
 * release of such a hold reports the loss instead of freeing the name.
 */
public final class LockTable {
  /** Name to the owner that holds it at the server. */
  private final Map<String, String> server = new HashMap<>();
  /** "name/owner" to that owner's hold count. */
  private final Map<String, Integer> counts = new HashMap<>();

  /** Takes {@code name} for {@code owner} if it is free, or counts one more hold if it has it. */
  public boolean tryLock(String name, String owner) {
    String key = name + "/" + owner;
    Integer count = counts.get(key);
    if (count != null) {
      counts.put(key, count + 1);
      return true;
    }
    if (server.containsKey(name)) {
      return false;
    }
    server.put(name, owner);
    counts.put(key, 1);
    return true;
  }

  /** Drops one hold: "ok", "not held", or "lost" for the last hold of a lease that ran out. */
  public String unlock(String name, String owner) {
    String key = name + "/" + owner;
    Integer count = counts.get(key);
    if (count == null) {
      return "not held";
    }
    if (count > 1) {
      counts.put(key, count - 1);
      return "ok";
    }
    counts.remove(key);
    return server.remove(name, owner) ? "ok" : "lost";
  }

  public int holdCount(String name, String owner) {
    return counts.getOrDefault(name + "/" + owner, 0);
  }

  /** How many names someone holds at the server. */
  public int serverNames() {
    return server.size();
  }

  /** Every lease runs out at the server; the holders do not know yet. */
  public void expireLeases() {
    server.clear();
  }
}

package dev.dlock.lab;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Closes every lab server still open when the JVM exits, so a {@code dlock lab} stopped with
 * Ctrl-C or SIGTERM leaves no redis-server, ZooKeeper or postmaster running. Best effort: a
 * {@code kill -9} of the lab runs no hook (the ZooKeeper child still exits, its stdin closing).
 *
 * <p>Why one hook for all: one thread closes the servers in turn, and a server closed earlier just
 * leaves the set, where a hook per server would have to be removed again.
 */
final class Reaper {
  private static final Set<AutoCloseable> OPEN = new LinkedHashSet<>();
  private static boolean hooked;

  private Reaper() {}

  static synchronized void register(AutoCloseable resource) {
    if (!hooked) {
      Runtime.getRuntime().addShutdownHook(new Thread(Reaper::closeAll, "dlock-lab-reaper"));
      hooked = true;
    }
    OPEN.add(resource);
  }

  static synchronized void unregister(AutoCloseable resource) {
    OPEN.remove(resource);
  }

  private static void closeAll() {
    List<AutoCloseable> open;
    synchronized (Reaper.class) {
      open = new ArrayList<>(OPEN);
    }
    for (AutoCloseable r : open) {
      try {
        r.close();
      } catch (Exception | Error e) {
        System.err.println("dlock lab: could not close " + r + " at exit: " + e);
      }
    }
  }
}

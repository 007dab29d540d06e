package dev.dlock.jdbc;

import dev.dlock.spi.Ticker;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * H2's bell: a ring reaches the inboxes of this JVM through a map from inbox id to bell. Why in
 * the JVM and not in the database: an H2 database is embedded in one JVM (in memory, or a file
 * that one process opens), so every releaser and waiter of it share that JVM; H2's own Java
 * triggers would run there too, but they would be DDL in the application's database that every
 * later opener of the file must be able to load. A waiter in another JVM (H2's TCP server, or
 * AUTO_SERVER) is not rung: its inbox finds the missed ring at its next round and keeps to short
 * rounds from then on. Inbox ids are random, so two databases in one JVM never mix their rings.
 */
final class LocalBell implements Bell {
  private static final ConcurrentHashMap<String, LocalBell> BELLS = new ConcurrentHashMap<>();

  private final Ticker ticker;
  private @Nullable String inbox;
  private boolean rung; // guarded by this

  LocalBell(Ticker ticker) {
    this.ticker = ticker;
  }

  /** Rings the inbox {@code inbox} if it is in this JVM; a no-op otherwise. */
  static void ring(String inbox) {
    LocalBell bell = BELLS.get(inbox);
    if (bell != null) {
      bell.rung();
    }
  }

  /** Stops rings reaching {@code inbox}, as if its client ran in another JVM; for tests. */
  static void unreachable(String inbox) {
    BELLS.remove(inbox);
  }

  private synchronized void rung() {
    rung = true;
    notifyAll();
  }

  @Override
  public void open(String inbox) {
    this.inbox = inbox;
    BELLS.put(inbox, this);
  }

  @Override
  public synchronized boolean await(long nanos, int armed) throws InterruptedException {
    long end = ticker.read() + nanos;
    for (long left = nanos; !rung && left > 0; left = end - ticker.read()) {
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    boolean was = rung;
    rung = false;
    return was;
  }

  @Override
  public void close() {
    String in = inbox;
    if (in != null) {
      BELLS.remove(in, this);
    }
  }
}

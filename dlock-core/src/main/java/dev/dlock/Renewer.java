package dev.dlock;

import dev.dlock.spi.Grant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's watchdog. Every leaseTime/3 it renews all renewable holds in one backend call, so a
 * healthy holder never runs out; holds the backend calls gone are marked lost at once. When a
 * renewal fails, validity is left alone and a check is scheduled for the earliest deadline, so a
 * lease that runs out without renewal is reported lost on time, not a period later. Fixed-lease
 * holds get one expiry check each at their deadline.
 */
final class Renewer {
  private static final Logger log = LoggerFactory.getLogger(Renewer.class);

  private final Engine engine;
  private final ScheduledExecutorService scheduler;
  private final Duration leaseTime;
  private final long leaseNanos;
  private final long period;
  private final Set<Hold> holds = ConcurrentHashMap.newKeySet();
  private volatile RuntimeException lastFailure;

  Renewer(Engine engine, ScheduledExecutorService scheduler, Duration leaseTime) {
    this.engine = engine;
    this.scheduler = scheduler;
    this.leaseTime = leaseTime;
    this.leaseNanos = leaseTime.toNanos();
    this.period = Math.max(1, leaseNanos / 3);
    scheduler.scheduleWithFixedDelay(this::renewAllGuarded, period, period, TimeUnit.NANOSECONDS);
  }

  RuntimeException lastFailure() {
    return lastFailure;
  }

  /**
   * Renews {@code h} from now on; at once, with the other holds, if the backend granted it for
   * less than a renewal period (as a grant pushed to a waiter is), so it never runs out first.
   */
  void add(Hold h) {
    holds.add(h);
    if (h.validUntil - engine.ticker.read() < period) {
      try {
        scheduler.execute(this::renewAllGuarded);
      } catch (RejectedExecutionException closing) {
        // The client is closing; its holds end with it.
      }
    }
  }

  void remove(Hold h) {
    holds.remove(h);
    var check = h.expiryCheck;
    if (check != null) {
      check.cancel(false);
    }
  }

  /**
   * Renews a fixed-lease hold to its whole lease before lock() returns, if less than three
   * quarters of that is left (a grant pushed to a waiter lasts only the waiter timeout), so it
   * lasts about as long as asked; watchdog holds get the same from {@link #add} at once.
   * A hold the backend calls gone is lost at once.
   */
  void topUp(Hold h) {
    long lease = Engine.saturatedNanos(h.spec.lease());
    long sentAt = engine.ticker.read();
    if (h.validUntil - sentAt >= lease / 4 * 3) {
      return;
    }
    try {
      if (engine.backend.renew(List.of(h.grant), h.spec.lease()).isEmpty()) {
        h.extendTo(sentAt + lease);
      } else {
        h.markLost(new NotOwnerException(engine.lostException(h, "the backend reports it no longer held by"
            + " this owner (" + engine.backend.describe() + ")").getMessage()), false);
      }
    } catch (RuntimeException e) {
      log.warn("dlock: could not extend lock '{}' to its lease; it is lost when its shorter grant runs out",
          h.name(), e);
    }
  }

  /** Checks a hold for expiry at its deadline, again if the deadline moved. */
  void scheduleExpiry(Hold h) {
    long delay = h.validUntil - engine.ticker.read();
    try {
      h.expiryCheck = scheduler.schedule(() -> {
        if (!h.isEnded() && h.loss() == null && !h.checkExpiry()) {
          scheduleExpiry(h);
        }
      }, Math.max(0, delay), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      // The client is closing; its holds end with it.
    }
  }

  /** A periodic task that throws is never run again, so nothing may escape it. */
  private void renewAllGuarded() {
    try {
      renewAll();
    } catch (RuntimeException | Error e) {
      log.error("dlock: the renewal round on {} failed unexpectedly", engine.backend.describe(), e);
    }
  }

  private void renewAll() {
    if (holds.isEmpty()) {
      return;
    }
    List<Hold> batch = new ArrayList<>(holds.size());
    for (Hold h : holds) {
      if (h.isEnded() || h.loss() != null || h.checkExpiry()) {
        holds.remove(h);
      } else {
        batch.add(h);
      }
    }
    if (batch.isEmpty()) {
      return;
    }
    List<Grant> grants = new ArrayList<>(batch.size());
    for (Hold h : batch) {
      grants.add(h.grant);
    }
    long sentAt = engine.ticker.read();
    Set<Grant> gone;
    try {
      gone = engine.backend.renew(grants, leaseTime);
      lastFailure = null;
    } catch (RuntimeException e) {
      lastFailure = e;
      log.warn("dlock: renewing {} lease(s) on {} failed; they are lost at their deadline unless a"
          + " later renewal succeeds", batch.size(), engine.backend.describe(), e);
      scheduleExpiry(earliest(batch));
      return;
    }
    for (Hold h : batch) {
      if (gone.contains(h.grant)) {
        holds.remove(h);
        h.markLost(new NotOwnerException(engine.lostException(h,
            "the backend reports it no longer held by this owner (" + engine.backend.describe() + ")")
            .getMessage()), false);
      } else {
        h.extendTo(sentAt + leaseNanos);
        engine.events.renewed(h.name(), h.grant.token());
      }
    }
  }

  private static Hold earliest(List<Hold> batch) {
    Hold first = batch.get(0);
    for (Hold h : batch) {
      if (h.validUntil - first.validUntil < 0) {
        first = h;
      }
    }
    return first;
  }
}

package dev.dlock.lab;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Fault F4, failover before replication, on a {@link SentinelSet}: the replica gets every write so
 * far and is cut off; worker 1 is granted the lock on the master alone and stays in that hold, at
 * its gap; once the master keeps that grant for nearly a whole lease (just granted or renewed), it
 * is killed ({@code kill -9}) and the Sentinels promote the replica, which never saw the grant. The
 * window from the cut to the promotion is logged as {@code F4 server} (its {@code invoke} carries
 * the master's clock at the cut as its token), and the kill inside it as an {@code info} event
 * ({@code F4 kill master}, its token the master's time to live of that grant in milliseconds, -1
 * with no holder at its gap); then the old master comes back, empty, as the new master's replica,
 * as a supervisor would restart it.
 *
 * <p>Why apart from {@link CellRun}: the fault has three steps on five processes and waits on a
 * grant's token and its time to live; the run hands down worker 1 and the workers' monitor, and
 * hears nothing back.
 */
final class Failover {
  private static final long POLL_MILLIS = 10;
  /** How close to a whole lease the master's time to live must be: a renewal just came. */
  private static final long FRESH_MILLIS = 300;

  private Failover() {}

  /**
   * Injects F4 on {@code server}, from GO: the cut comes at once, before worker 1's gap arms at
   * {@code faultAt}. With {@code waitReplicas} no grant comes during the cut, and the master is
   * killed after {@code faultAt} and an acquire's wait.
   *
   * @param holder worker 1, whose gap holds the grant the replica never sees
   * @param lock   the lock's name, whose key dlock keeps as {@code dlock:{name}:lock}
   */
  static void inject(LabServer server, History injector, WorkerProcess holder, Object monitor, String lock,
      LabSettings settings) throws InterruptedException {
    if (!(server instanceof SentinelSet set)) {
      throw new IllegalStateException("fault F4 needs the lab's Sentinel set, the cell's server is " + server);
    }
    long cut = set.cutOffReplica();
    injector.log("fault", "invoke", "", cut, "F4 server");
    boolean failedOver = false;
    try {
      long ttl = -1;
      if (awaitGap(holder, cut, monitor, settings.faultAt().plus(settings.acquireWait()))) {
        ttl = awaitWholeLease(set, "dlock:{" + lock + "}:lock", settings.lease());
      }
      injector.log("fault", "info", "", ttl, "F4 kill master"); // inside the window: no window of its own
      set.failOver();
      failedOver = true;
    } finally {
      if (!failedOver) {
        set.resume(); // a replica left paused would stop the next cell's set
      }
      injector.log("fault", "ok", "", -1, "F4 server");
    }
    set.rejoin();
  }

  /**
   * Waits, up to {@code patience}, until {@code holder} is at its gap; false if it is not. Its token
   * there must be above {@code cut}: a grant the master drew after the cut, which the replica never
   * received.
   */
  private static boolean awaitGap(WorkerProcess holder, long cut, Object monitor, Duration patience)
      throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    synchronized (monitor) {
      while (!holder.atGap()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(monitor, left);
      }
      if (holder.token() <= cut) {
        throw new IllegalStateException("worker " + holder.name() + " reached its gap with token "
            + holder.token() + ", not above the master's clock at the cut (" + cut
            + " us): a grant the replica has; the cut came too late");
      }
      return true;
    }
  }

  /**
   * Waits, up to a lease, until the master keeps {@code key} for nearly a whole {@code lease}, and
   * returns the time to live it last saw (milliseconds): the
   * holder's grant or its watchdog's latest renewal has just come. Why: a grant handed over by a
   * release lasts dlock's waiter timeout (3 s) until the watchdog's next round (a third of the lease)
   * renews it, and a kill before that round would leave the holder a deadline shorter than the
   * failover; in production a lease outlasts a failover whenever the master dies.
   */
  private static long awaitWholeLease(SentinelSet set, String key, Duration lease) throws InterruptedException {
    long deadline = System.nanoTime() + lease.toNanos();
    while (true) {
      long ttl = set.ttlMillis(key);
      if (ttl >= lease.toMillis() - FRESH_MILLIS || System.nanoTime() - deadline > 0) {
        return ttl;
      }
      TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
    }
  }
}

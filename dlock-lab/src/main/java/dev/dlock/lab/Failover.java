package dev.dlock.lab;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Fault F4, failover before replication, on a {@link SentinelSet}: the replica gets every write so
 * far and is cut off; a worker is granted the lock on the master alone; the master is killed
 * ({@code kill -9}) and the Sentinels promote the replica, which never saw that grant. The window
 * from the cut to the promotion is logged as {@code F4 server}, and the kill inside it as an
 * {@code info} event ({@code F4 kill master}); then the old master comes back,
 * empty, as the new master's replica, as a supervisor would restart it.
 *
 * <p>Why apart from {@link CellRun}: the fault has three steps on five processes and a wait for a
 * grant by its token; the run hands down the workers and their monitor, and hears nothing back.
 */
final class Failover {
  private Failover() {}

  /**
   * Injects F4 on {@code server}.
   *
   * @param patience how long to wait, after the cut, for a worker to enter with a grant the replica
   *     cannot have (a lease: the holder at the cut is done by then); with {@code waitReplicas} no
   *     such grant comes, and the master is killed after it
   */
  static void inject(LabServer server, History injector, List<WorkerProcess> workers, Object monitor,
      Duration patience) throws InterruptedException {
    if (!(server instanceof SentinelSet set)) {
      throw new IllegalStateException("fault F4 needs the lab's Sentinel set, the cell's server is " + server);
    }
    long cut = set.cutOffReplica();
    injector.log("fault", "invoke", "", -1, "F4 server");
    boolean failedOver = false;
    try {
      awaitGrantAfter(cut, workers, monitor, patience);
      injector.log("fault", "info", "", -1, "F4 kill master"); // inside the window: no window of its own
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
   * Waits, up to {@code patience}, until some worker enters with a token above {@code cut}: a grant
   * the master drew after the cut, which the replica never received.
   */
  private static void awaitGrantAfter(long cut, List<WorkerProcess> workers, Object monitor, Duration patience)
      throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    synchronized (monitor) {
      while (true) {
        for (WorkerProcess w : workers) {
          if (w.token() > cut) {
            return;
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        TimeUnit.NANOSECONDS.timedWait(monitor, left);
      }
    }
  }
}

package dev.dlock.bench.scale;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Scale row S1: one client holding n leases (distinct names, taken with {@code acquire()} so no
 * thread owns them), renewed by its watchdog. Waits for the first round that renews all n, then
 * measures the next {@code rounds}: their time, and the server's request counters across them, so
 * nothing but those rounds falls between the two readings (the client is idle otherwise; ZooKeeper
 * session pings do fall in).
 */
final class S1 {
  /** Threads that acquire and release the leases, to shorten the set-up; they end before the heap is weighed. */
  static final int ACQUIRE_THREADS = 4;

  /**
   * One S1 row. Times in nanoseconds; requests, server ops and server time per round, -1 where the server cannot
   * count; heaps after GC in bytes, before the first acquire and with every lease held.
   */
  record Result(String backend, int leases, int rounds, long maxRoundNanos, long maxCallNanos,
      double requestsPerRound, double serverOpsPerRound, double serverMicrosPerRound, long heapEmpty,
      long heapHeld) {

    /** Heap per lease held, in bytes. */
    double heapPerLease() {
      return (heapHeld - heapEmpty) / (double) leases;
    }
  }

  private S1() {}

  static Result run(ScaleBackend b, int leases, Duration lease, int rounds, PrintStream progress)
      throws Exception {
    RenewalClock clock = new RenewalClock();
    try (LockClient client = LockClient.builder().backend(TimedBackend.wrap(b.open(), clock))
        .clientName("scale").leaseTime(lease).listener(clock).build()) {
      long heapEmpty = Heap.usedAfterGc();
      Lease[] held = new Lease[leases];
      String prefix = "s1-" + leases + "-";
      double took = Spread.run(leases, ACQUIRE_THREADS, progress, "S1 " + b.name() + " acquired",
          i -> held[i] = client.lock(prefix + i).acquire());
      // Rounds during the acquisitions show whether new grants trigger rounds of every hold.
      progress.printf(Locale.ROOT, "bench:   %,d leases held after %.1f s (%d renewal rounds meanwhile);"
          + " waiting for full renewal rounds (one every %s)%n", leases, took, clock.completed(), lease.dividedBy(3));
      long heapHeld = Heap.usedAfterGc();
      Duration timeout = lease.multipliedBy(2).plusSeconds(60);
      int next = clock.awaitRound(0, leases, timeout) + 1;
      long requests = b.requests();
      long ops = b.serverOps();
      long micros = b.serverMicros();
      List<RenewalClock.Round> measured = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        int at = clock.awaitRound(next, leases, timeout);
        measured.add(clock.round(at));
        next = at + 1;
        progress.printf(Locale.ROOT, "bench:   round %d: %.1f ms (renew call %.1f ms)%n", r + 1,
            clock.round(at).roundNanos() / 1e6, clock.round(at).callNanos() / 1e6);
      }
      double requestsPerRound = perRound(requests, b.requests(), rounds);
      double opsPerRound = perRound(ops, b.serverOps(), rounds);
      double microsPerRound = perRound(micros, b.serverMicros(), rounds);
      Spread.run(leases, ACQUIRE_THREADS, progress, "S1 " + b.name() + " released", i -> held[i].close());
      return new Result(b.name(), leases, rounds,
          measured.stream().mapToLong(RenewalClock.Round::roundNanos).max().orElseThrow(),
          measured.stream().mapToLong(RenewalClock.Round::callNanos).max().orElseThrow(),
          requestsPerRound, opsPerRound, microsPerRound, heapEmpty, heapHeld);
    }
  }

  private static double perRound(long before, long after, int rounds) {
    return before < 0 || after < 0 ? -1 : (after - before) / (double) rounds;
  }
}

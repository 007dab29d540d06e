package dev.dlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockListener;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One lock handed from a holder client to a waiting client, for the tests of the bells: the
 * waiter's engine retries only every 30 s and the holder's lease is a minute, so a waiter that
 * gets the lock within seconds of the release was woken by its inbox, not by its own retry.
 */
final class Handover implements AutoCloseable {
  /** How soon after the release the waiter must hold the lock: generous, as this is no timing. */
  static final Duration WITHIN = Duration.ofSeconds(5);
  private static final Duration LEASE = Duration.ofMinutes(1);

  final String name = LeaseCases.name();
  private final LockClient holder;
  private final LockClient waiter;
  private final Lease held;
  private final FutureTask<Lease> next;

  /**
   * Holds the lock in one client and returns once another client queued for it.
   *
   * @param fallbackRound the waiting client's inbox round while rings reach it
   */
  Handover(String url, Duration fallbackRound) throws InterruptedException {
    holder = LockClient.builder().leaseTime(LEASE).backend(JdbcLockBackend.builder().url(url).build()).build();
    LeaseBackend backend = (LeaseBackend) JdbcLockBackend.builder().url(url).build();
    backend.fallbackRound(fallbackRound);
    CountDownLatch queued = new CountDownLatch(1);
    waiter = LockClient.builder().maxPollInterval(Duration.ofSeconds(30)).listener(new LockListener() {
      @Override
      public void waited(String lock) {
        queued.countDown();
      }
    }).backend(backend).build();
    held = holder.lock(name).tryAcquire().orElseThrow();
    next = new FutureTask<>(() -> waiter.lock(name).acquire(Duration.ofMinutes(2)));
    new Thread(next, "handover-waiter").start();
    assertThat(queued.await(10, TimeUnit.SECONDS)).as("the waiter queued").isTrue();
  }

  /** Releases the lock and checks that the waiter holds it {@link #WITHIN} after. */
  void releaseAndCheckHandedOver() throws InterruptedException, ExecutionException {
    held.close();
    Lease got;
    try {
      got = next.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("the waiter did not get lock '" + name + "' within " + WITHIN
          + " of its release", e);
    }
    assertThat(got.token()).isGreaterThan(held.token());
    got.close();
  }

  @Override
  public void close() {
    next.cancel(true);
    waiter.close();
    holder.close();
  }
}

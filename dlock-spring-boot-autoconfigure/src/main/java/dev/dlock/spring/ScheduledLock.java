package dev.dlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a {@code @Scheduled} method on at most one node of the cluster per tick.
 *
 * <pre>{@code
 * @Scheduled(cron = "0 0 2 * * *")
 * @ScheduledLock(name = "nightly-report", lockAtMostFor = "PT30M", lockAtLeastFor = "PT30S")
 * void nightlyReport() {
 *   report.write(CurrentLease.get().orElseThrow().token());
 * }
 * }</pre>
 *
 * <p>Each tick, the node tries the lock once, without waiting. A node that finds it held skips the
 * run, logs it at debug and tells every {@link ScheduledLockListener} (the starter's metrics count
 * {@code dlock.scheduled.skipped}). While the method runs, its lease is renewed by dlock's
 * watchdog, so a job longer than {@code lockAtMostFor} still runs on one node only; if the lease is
 * lost all the same, the method's thread is interrupted (unless {@link #interruptOnLoss()} is
 * false), and the loss is logged and counted. The method reads its lease, and its fencing token,
 * through {@link CurrentLease#get()}.
 *
 * <p>Durations are ISO-8601 ({@code PT30S}) or simple ({@code 30s}), and may be {@code ${...}}
 * placeholders. A bad value fails the application's start, naming the method and the value.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ScheduledLock {

  /** The lock's name, the same on every node; a {@code ${...}} placeholder is resolved. */
  String name();

  /**
   * The longest a node that dies mid-job keeps the lock. Empty means {@code dlock.lease-time}. Up
   * to {@code dlock.lease-time}, the lease is this long and fixed: a job that outlives it loses the
   * lock, which is why that loss interrupts it. From {@code dlock.lease-time} on, the job's lease is
   * the client's watchdog lease, renewed while the job runs, so a dead node's hold ends within
   * {@code dlock.lease-time}, sooner than this bound.
   */
  String lockAtMostFor() default "";

  /**
   * How long after the start of a run the lock stays held, however short the run and whether or
   * not it failed: a node whose
   * clock is a little behind then finds it held and does not run the same tick again. At most
   * {@link #lockAtMostFor()}.
   */
  String lockAtLeastFor() default "PT0S";

  /** Whether a lost lease interrupts the method's thread while it runs. */
  boolean interruptOnLoss() default true;
}

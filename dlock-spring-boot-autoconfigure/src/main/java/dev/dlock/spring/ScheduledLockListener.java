package dev.dlock.spring;

/**
 * Events of {@link ScheduledLock} runs, with no-op defaults. Every bean of this type is told;
 * the starter's Micrometer metrics are one. Methods run on the scheduler's thread: keep them fast.
 */
public interface ScheduledLockListener {

  /** A node skipped a run because another held the lock, or this node held it on from a run. */
  default void skipped(String name) {}

  /** A run's lease was lost while the run held it. */
  default void lost(String name, Throwable reason) {}
}

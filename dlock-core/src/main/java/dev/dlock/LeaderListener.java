package dev.dlock;

/**
 * What a {@link LeaderLatch} tells its owner. Every method has a no-op default, so an event added
 * later breaks no implementation. The calls come one at a time on the latch's own thread, in the
 * order of events; a callback that throws is logged and the latch goes on. Keep them short: the
 * latch does not watch for loss or closing while a callback runs.
 */
public interface LeaderListener {

  /** This client won the election; {@code lease} is its hold on the lock behind the latch. */
  default void elected(Lease lease) {}

  /**
   * This client is no longer the leader because its lease was lost (it expired, the session died,
   * the server said it is not the owner). The latch then stands for election again.
   */
  default void lost(Lease lease, LeaseLostException reason) {}

  /** This client stepped down because its latch was closed; the lock has been released. */
  default void resigned(Lease lease) {}
}

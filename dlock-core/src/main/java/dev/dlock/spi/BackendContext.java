package dev.dlock.spi;


/** What the engine gives a backend at {@link LockBackend#start}. */
public interface BackendContext {

  /** This client's id: unique, without {@code ':'}; the prefix of every owner string it uses. */
  String clientId();

  /** The client's monotonic clock. */
  Ticker ticker();

  /**
   * Tells the engine that {@code name} was released (or may now be free). It wakes this client's
   * waiter for that name, if any. Cheap, non-blocking, callable from any thread, including I/O
   * threads; a notification for a name nobody waits on is ignored.
   */
  void released(String name);

  /**
   * Tells the engine that the backend learned, on its own, that a grant is gone (a session expired,
   * a connection holding a session lock died). The holder's loss signal fires.
   */
  void lost(Grant grant, String reason);

  /**
   * Tells the engine that a connection was re-established or a failover was seen, so the server
   * that answers now may not know every grant this client holds. The engine re-checks every held
   * lease at once (an owner-checked renewal), instead of waiting for the next period, and a lease
   * the new server does not know is declared lost. Cheap and non-blocking, callable from any
   * thread, including I/O threads.
   *
   * @param why what happened, for the log, without secrets
   */
  default void reconnected(String why) {}
}

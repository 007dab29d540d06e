package dev.dlock.internal;

/**
 * Implemented by clients that can simulate the death of their process, for fault-injection tests
 * such as the conformance suite's: renewal stops and connections close, but nothing is released,
 * so the server frees the client's locks only when their leases run out.
 *
 * <p>A backend may implement it too: an abandoned client then calls the backend's {@code abandon()}
 * instead of {@code close()}, so the backend drops its connections without the tidying a close
 * does (leaving wait queues, deleting nodes).
 */
public interface Abandonable {

  /** Drops this client as if its process had died. Idempotent. */
  void abandon();
}

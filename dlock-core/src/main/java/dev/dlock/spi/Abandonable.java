package dev.dlock.spi;

/**
 * Implemented by clients that can simulate the death of their process, for fault-injection tests
 * such as the conformance suite's: renewal stops and connections close, but nothing is released,
 * so the server frees the client's locks only when their leases run out.
 */
public interface Abandonable {

  /** Drops this client as if its process had died. Idempotent. */
  void abandon();
}

package dev.dlock.engine;

import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.Ticker;

/**
 * What the engine's collaborators ({@link Acquisition}, {@link Release}, {@link Hold}) share, passed
 * down so that none of them calls back into {@link Engine}: the backend and the wrapper for its
 * calls, the ticker, the events, the name table and the background clean-up.
 */
final class EngineContext {
  final LockBackend backend;
  final Calls calls;
  final Ticker ticker;
  final Events events;
  final String clientId;
  final long maxPollNanos;
  final Names names;
  final Cleanup cleanup;

  EngineContext(LockBackend backend, Ticker ticker, Events events, String clientId, long maxPollNanos,
      Cleanup cleanup) {
    this.backend = backend;
    this.calls = new Calls(backend, clientId);
    this.ticker = ticker;
    this.events = events;
    this.clientId = clientId;
    this.maxPollNanos = maxPollNanos;
    this.names = new Names(clientId);
    this.cleanup = cleanup;
  }

  /**
   * Withdraws a wait at the backend off the caller's thread, so a dead server does not hold up a
   * caller whose deadline passed. Nothing is sent for an abandoned (crashed) client.
   */
  void cancelQuietly(String name, String owner) {
    if (!names.isAbandoned()) {
      cleanup.cancel(name, owner);
    }
  }

  /** A grant whose holder was told it is lost: released at the server in the background. */
  void releaseLost(Grant grant) {
    if (!names.isAbandoned() && !names.isClosed()) {
      cleanup.releaseLost(grant);
    }
  }
}

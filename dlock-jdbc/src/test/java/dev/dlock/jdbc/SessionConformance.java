package dev.dlock.jdbc;

import dev.dlock.testkit.SessionLockConformanceSuite;

/**
 * The conformance suite as it applies to session locks (S3): every case but those that need the
 * server to expire a grant, since a session lock lives as long as its connection. Waiters are
 * woken by the server itself, not by release notifications to the engine. The loss of a holder
 * whose connection died is tested in {@link SessionLockCases}.
 */
abstract class SessionConformance extends SessionLockConformanceSuite {

  @Override
  protected boolean notifiesReleases() {
    return false;
  }
}

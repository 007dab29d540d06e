package dev.dlock.testkit;

/**
 * The conformance suite for locks bound to a connection or session rather than to a server-side
 * lease, such as a PostgreSQL advisory lock or a MariaDB {@code GET_LOCK}: the server keeps such a
 * grant as long as its connection lives and frees it the moment the connection dies. It runs every
 * case of {@link LockConformanceSuite} except the four that need the server to drop a grant when
 * its lease runs out (a fixed lease expiring, and a crashed holder freed after its lease). A
 * backend of this kind tests the loss of a holder whose connection died with its own server, by
 * killing that connection.
 */
public abstract class SessionLockConformanceSuite extends SuiteBase
    implements BasicCases, ExpiryCases, WaitCases, ContentionCases, MisuseCases {

  /** For subclasses. */
  protected SessionLockConformanceSuite() {}
}

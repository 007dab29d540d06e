package dev.dlock.spring.integration;

/**
 * The registry on dlock's JDBC lease locks, on an in-memory H2 database; DB_CLOSE_DELAY keeps it
 * for the whole class, since each client opens and closes its own connections.
 */
class DlockLockRegistryH2Test extends LockRegistryContract {

  @Override
  String url() {
    return "jdbc:h2:mem:dlock-registry;DB_CLOSE_DELAY=-1";
  }
}

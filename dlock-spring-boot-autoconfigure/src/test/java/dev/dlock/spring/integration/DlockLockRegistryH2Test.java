package dev.dlock.spring.integration;

/** The registry on dlock's JDBC lease locks, on an in-memory H2 database. */
class DlockLockRegistryH2Test extends LockRegistryContract {

  @Override
  String url() {
    return "jdbc:h2:mem:dlock-registry;DB_CLOSE_DELAY=-1";
  }
}

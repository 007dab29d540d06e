package dev.dlock.jdbc;

import static dev.dlock.jdbc.TestDatabase.SECRET;

import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class H2BackendTest extends LeaseBackendCases {
  @RegisterExtension
  static final H2Database database = new H2Database();

  @Override
  TestDatabase db() {
    return database;
  }

  @Override
  String shiftExpirySql() {
    return "UPDATE dlock_locks SET expires_at = DATEADD(SECOND, ?, CURRENT_TIMESTAMP) WHERE name = ?";
  }

  @Override
  String timestampType() {
    return "TIMESTAMP(6) WITH TIME ZONE";
  }

  @Override
  List<String> workingSecretUrls() {
    return List.of(database.passwordUrl());
  }

  @Override
  List<String> failingSecretUrls() throws Exception {
    String closed = "127.0.0.1:" + TestDatabase.closedPort();
    return List.of(database.url() + ";USER=app;PASSWORD=" + SECRET + "-wrong",
        "jdbc:h2:mem:nosuchdb;IFEXISTS=TRUE;USER=app;PASSWORD=" + SECRET,
        "jdbc:h2:tcp://" + closed + "/mem:x;USER=app;PASSWORD=" + SECRET,
        "jdbc:h2:tcp://app:" + SECRET + "@" + closed + "/mem:x");
  }

  @Override
  DataSource secretDataSource(boolean works) {
    JdbcDataSource ds = database.dataSource();
    ds.setUser("app");
    ds.setPassword(works ? SECRET : SECRET + "-wrong");
    return ds;
  }

  // ---- the bell (LocalBell)

  /** The waiter's rounds are a minute apart: only the release's ring can wake it in time. */
  @Test
  void aReleaseRingsTheWaitingClient() throws Exception {
    try (Handover h = new Handover(database.url(), Duration.ofMinutes(1))) {
      h.releaseAndCheckHandedOver();
    }
  }

  /**
   * Rings cannot reach the waiter, as if it ran in another JVM on H2's server: its inbox finds
   * the release at its next round (the default, 1 s).
   */
  @Test
  void aWaiterThatNoRingReachesGetsTheLockAtItsNextRound() throws Exception {
    try (Handover h = new Handover(database.url(), InboxPoller.FALLBACK_ROUND)) {
      LocalBell.unreachable((String) query("SELECT inbox FROM dlock_locks_waiters WHERE name = ?", h.name));
      h.releaseAndCheckHandedOver();
    }
  }
}

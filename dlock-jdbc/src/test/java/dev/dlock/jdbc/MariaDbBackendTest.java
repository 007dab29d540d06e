package dev.dlock.jdbc;

import static dev.dlock.jdbc.TestDatabase.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mariadb.jdbc.MariaDbDataSource;

class MariaDbBackendTest extends LeaseBackendCases {
  @RegisterExtension
  static final MariaDbServer server = new MariaDbServer();

  @Override
  TestDatabase db() {
    return server;
  }

  @Override
  String shiftExpirySql() {
    return "UPDATE dlock_locks SET expires_at = UTC_TIMESTAMP(6) + INTERVAL ? SECOND WHERE name = ?";
  }

  @Override
  String timestampType() {
    return "DATETIME(6)";
  }

  @Override
  List<String> workingSecretUrls() {
    String at = "127.0.0.1:" + server.port() + "/dlock";
    return List.of(server.passwordUrl(), "jdbc:mariadb://app:" + SECRET + "@" + at,
        "jdbc:mysql://" + at + "?permitMysqlScheme&user=app&password=" + SECRET);
  }

  /** No wrong password: the test server runs without grant checks. */
  @Override
  List<String> failingSecretUrls() throws Exception {
    String closed = "127.0.0.1:" + TestDatabase.closedPort();
    return List.of("jdbc:mariadb://" + closed + "/dlock?user=app&password=" + SECRET,
        "jdbc:mariadb://app:" + SECRET + "@" + closed + "/dlock",
        "jdbc:mysql://" + closed + "/dlock?permitMysqlScheme&user=app&password=" + SECRET,
        "jdbc:mariadb://127.0.0.1:" + server.port() + "/nosuchdb?user=app&password=" + SECRET);
  }

  @Override
  DataSource secretDataSource(boolean works) throws Exception {
    int port = works ? server.port() : TestDatabase.closedPort();
    return new MariaDbDataSource("jdbc:mariadb://127.0.0.1:" + port + "/dlock?user=app&password=" + SECRET);
  }

  // ---- the bell (MariaDbBell)

  /** The waiter's rounds are a minute apart: only the release's ring can wake it in time. */
  @Test
  void aReleaseRingsTheWaitingClient() throws Exception {
    try (Handover h = new Handover(server.url(), Duration.ofMinutes(1))) {
      h.releaseAndCheckHandedOver();
    }
  }

  /**
   * The waiter's bell connection is killed, so the release rings no one; the inbox connects
   * again, finds its queue row gone before it sleeps, and wakes the waiter.
   */
  @Test
  void aWaiterWhoseBellConnectionDiedStillGetsTheLock() throws Exception {
    try (Handover h = new Handover(server.url(), Duration.ofMinutes(1))) {
      Object inbox = query("SELECT inbox FROM dlock_locks_waiters WHERE name = ?", h.name);
      Object bell = query("SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE ?",
          "%SLEEP(%) END AS " + inbox);
      assertThat(bell).as("the sleep of inbox %s", inbox).isNotNull();
      db().execute("KILL CONNECTION " + bell);
      h.releaseAndCheckHandedOver();
    }
  }
}

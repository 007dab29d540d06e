package dev.dlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.LockClient;
import dev.dlock.LockException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pool dlock makes for a PostgreSQL URL bounds its statements by the server's statement_timeout
 * rather than a client timer: a grant stuck behind another transaction's row lock is cut off.
 */
class PostgresTimeoutTest {
  @RegisterExtension
  static final PostgresServer server = new PostgresServer();

  @Test
  void aStatementStuckOnARowLockIsCutOffByTheServer() throws Exception {
    try (LockClient client = LockClient.builder().backend(JdbcLockBackend.builder().url(server.url())
            .queryTimeout(Duration.ofSeconds(1)).build()).build();
        Connection blocker = DriverManager.getConnection(server.url())) {
      client.lock("stuck").tryAcquire().orElseThrow().close(); // the row exists now
      blocker.setAutoCommit(false);
      try (PreparedStatement ps = blocker.prepareStatement(
          "SELECT name FROM dlock_locks WHERE name = 'stuck' FOR UPDATE")) {
        ps.executeQuery().close();
      }
      long start = System.nanoTime();
      // A wait longer than the statement timeout, so the server's timer, not the caller's
      // deadline, ends the statement (a zero wait would give the call only CallTimeout.MINIMUM).
      assertThatThrownBy(() -> client.lock("stuck").tryAcquire(Duration.ofSeconds(10)))
          .isInstanceOf(LockException.class).hasMessageContaining("statement timeout");
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(Duration.ofMillis(900)).isLessThan(Duration.ofSeconds(5));
      blocker.rollback();
      assertThat(client.lock("stuck").tryAcquire()).hasValueSatisfying(l -> l.close());
    }
  }
}

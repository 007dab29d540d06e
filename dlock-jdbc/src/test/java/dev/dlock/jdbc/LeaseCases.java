package dev.dlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClient;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.testkit.RecordingContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;

/**
 * What the backend cases share: the database the subclass started, backends and clients closed
 * after each test, unique names and tables, and direct SQL on the database.
 */
abstract class LeaseCases {
  static final Duration LONG = Duration.ofSeconds(30);
  static final Duration PATIENCE = Duration.ofSeconds(10);
  static final AtomicInteger SEQ = new AtomicInteger();

  final List<LockBackend> backends = new ArrayList<>();
  final List<LockClient> clients = new ArrayList<>();

  /** The database the subclass started. */
  abstract TestDatabase db();

  /** SQL setting expires_at of the row named by the second parameter to database now + ? seconds. */
  abstract String shiftExpirySql();

  @AfterEach
  void closeAll() {
    clients.forEach(LockClient::close);
    backends.forEach(LockBackend::close);
  }

  // ---- helpers

  static String name() {
    return "case-" + SEQ.incrementAndGet() + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
  }

  static String table(String role) {
    return "t" + SEQ.incrementAndGet() + "_" + role;
  }

  LockBackend backend(RecordingContext context, JdbcLockBackend.Builder builder) {
    LockBackend b = builder.build();
    backends.add(b);
    b.start(context);
    return b;
  }

  LockBackend backend(RecordingContext context) {
    return backend(context, JdbcLockBackend.builder().url(db().url()));
  }

  LockClient client(JdbcLockBackend.Builder builder) {
    LockClient c = LockClient.builder().backend(builder.build()).build();
    clients.add(c);
    return c;
  }

  static Grant granted(LockBackend b, String name, String owner) {
    Attempt a = b.tryAcquire(LockRequest.exclusive(name, owner, LONG, false));
    assertThat(a.isGranted()).as("%s for %s", a, owner).isTrue();
    return new Grant(name, owner, a.token());
  }

  Object query(String sql, Object... args) throws SQLException {
    try (Connection c = db().dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getObject(1) : null;
      }
    }
  }

  void shiftExpiry(String name, int seconds) throws SQLException {
    try (Connection c = db().dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(shiftExpirySql())) {
      ps.setInt(1, seconds);
      ps.setString(2, name);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
  }
}

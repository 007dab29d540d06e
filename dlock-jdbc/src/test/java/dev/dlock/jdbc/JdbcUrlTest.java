package dev.dlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.BackendUnavailableException;
import dev.dlock.LockClient;
import dev.dlock.Lease;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.LockBackend;
import dev.dlock.testkit.RecordingContext;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** URLs, builder arguments and unreachable databases; needs no server but H2. */
class JdbcUrlTest {

  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void anUnreachableDatabaseIsOneLineNamingTheRedactedUrl() throws Exception {
    int port = closedPort();
    for (String url : List.of(
        "jdbc:postgresql://127.0.0.1:" + port + "/db?user=u&password=s3cret",
        "jdbc:mariadb://127.0.0.1:" + port + "/db?user=u&password=s3cret",
        "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:db;USER=u;PASSWORD=s3cret")) {
      long start = System.nanoTime();
      assertThatThrownBy(() -> LockClient.connect(url))
          .as(url)
          .isInstanceOf(BackendUnavailableException.class)
          .hasMessageNotContaining("s3cret")
          .hasMessageContaining(url.substring(0, url.indexOf("s3cret")) + "***")
          .satisfies(e -> {
            assertThat(e.getMessage()).doesNotContain("\n");
            assertThat(e.getCause()).isInstanceOf(SQLException.class);
          });
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
    }
  }

  @Test
  void aUrlNoDriverAcceptsIsRejectedNamingIt() {
    assertThatThrownBy(() -> LockClient.connect("jdbc:nosuchdb://host/x?password=s3cret"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jdbc:nosuchdb://host/x?password=***")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> JdbcLockBackend.builder().url("postgresql://host/x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("url")
        .hasMessageContaining("postgresql://host/x");
    assertThatThrownBy(() -> JdbcLockBackend.builder().build()).isInstanceOf(IllegalStateException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "1locks", "dlock-locks", "locks; DROP TABLE x", "s.t",
      "a_table_name_that_is_longer_than_forty_eight_chars"})
  void aBadTableNameIsRejectedNamingIt(String table) {
    assertThatThrownBy(() -> JdbcLockBackend.builder().table(table))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("table")
        .hasMessageContaining("'" + table + "'");
  }

  @Test
  void badBuilderSettingsAreRejectedNamingThem() {
    JdbcLockBackend.Builder b = JdbcLockBackend.builder();
    assertThatThrownBy(() -> b.table(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("table");
    assertThatThrownBy(() -> b.queryTimeout(Duration.ofMillis(10)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("queryTimeout").hasMessageContaining("PT0.01S");
    assertThatThrownBy(() -> b.poolSize(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("poolSize").hasMessageContaining("0");
    assertThatThrownBy(() -> b.dataSource(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("dataSource");
  }

  @Test
  void theDlockTableParameterNamesTheTableAndNeverReachesTheDriver() throws SQLException {
    String db = "jdbc:h2:mem:urlparam;DB_CLOSE_DELAY=-1";
    try (LockClient client = LockClient.connect(db + ";dlockTable=param_locks;connectTimeout=1s");
        Lease lease = client.lock("x").tryAcquire().orElseThrow()) {
      assertThat(lease.token()).isPositive();
      try (Connection c = DriverManager.getConnection(db);
          ResultSet rs = c.createStatement().executeQuery("SELECT owner FROM param_locks")) {
        assertThat(rs.next()).isTrue();
      }
    }
  }

  @Test
  void theDlockModeParameterSelectsSessionLocksAndNeverReachesTheDriver() throws SQLException {
    String db = "jdbc:h2:mem:urlmode;DB_CLOSE_DELAY=-1";
    try (LockClient client = LockClient.connect(db + ";dlockMode=session;dlockTable=mode_locks");
        Lease lease = client.lock("x").tryAcquire().orElseThrow()) {
      assertThat(lease.token()).isPositive();
      // A session lock is a row lock in an open transaction: no owner is ever written.
      try (Connection c = DriverManager.getConnection(db);
          ResultSet rs = c.createStatement().executeQuery("SELECT owner FROM mode_locks WHERE name = 'x'")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isNull();
      }
    }
    assertThatThrownBy(() -> LockClient.connect(db + ";dlockMode=bogus"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dlockMode")
        .hasMessageContaining("'bogus'");
  }

  /** Each parameter the backend reads, malformed: refused before any connection is tried. */
  @ParameterizedTest
  @ValueSource(strings = {"dlockMode=bogus", "dlockMode=Session", "dlockMode=", "dlockTable=1locks",
      "dlockTable=a-b", "dlockTable=", "connectTimeout=abc", "connectTimeout=10", "connectTimeout=-2s",
      "connectTimeout=0s", "connectTimeout=100ms", "connectTimeout=2d", "connectTimeout="})
  void aMalformedParameterIsRefusedNamingItAndItsValue(String parameter) throws Exception {
    String key = parameter.substring(0, parameter.indexOf('='));
    String value = parameter.substring(key.length() + 1);
    int port = closedPort();
    for (String url : List.of(
        "jdbc:postgresql://127.0.0.1:" + port + "/db?user=u&password=s3cret&" + parameter,
        "jdbc:postgresql://127.0.0.1:" + port + "/db?" + parameter + "&password=s3cret",
        "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:x;PASSWORD=s3cret;" + parameter)) {
      assertThatThrownBy(() -> LockClient.connect(url)).as(url)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(key).hasMessageContaining("'" + value + "'")
          .hasMessageNotContaining("s3cret");
    }
  }

  @Test
  void aParameterGivenTwiceIsRefused() {
    assertThatThrownBy(() -> LockClient.connect("jdbc:h2:mem:twice;dlockTable=a;dlockTable=b"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dlockTable")
        .hasMessageContaining("twice");
    assertThatThrownBy(() -> JdbcLockBackend.builder().connectTimeout(Duration.ofMillis(100)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connectTimeout")
        .hasMessageContaining("PT0.1S");
  }

  @Test
  void aDatabaseThatGoesAwayMakesOperationsUnavailableNotHeld() throws Exception {
    Server server = Server.createTcpServer("-tcpPort", "0", "-tcpAllowOthers", "-ifNotExists").start();
    String url = "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/mem:away;DB_CLOSE_DELAY=-1";
    LockBackend backend = JdbcLockBackend.builder().url(url).queryTimeout(Duration.ofSeconds(2)).build();
    try {
      backend.start(new RecordingContext("a"));
      var attempt = backend.tryAcquire(LockRequest.exclusive("x", "a:1", Duration.ofSeconds(30), false));
      assertThat(attempt.isGranted()).isTrue();
      server.stop();
      assertThatThrownBy(() -> backend.tryAcquire(LockRequest.exclusive("y", "a:2", Duration.ofSeconds(30), true)))
          .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("'y'")
          .hasCauseInstanceOf(SQLException.class);
      assertThatThrownBy(() -> backend.renew(List.of(new Grant("x", "a:1", attempt.token())),
          Duration.ofSeconds(30))).isInstanceOf(BackendUnavailableException.class);
      assertThatThrownBy(() -> backend.release(new Grant("x", "a:1", attempt.token())))
          .isInstanceOf(BackendUnavailableException.class);
    } finally {
      server.stop();
      backend.close();
    }
  }
}

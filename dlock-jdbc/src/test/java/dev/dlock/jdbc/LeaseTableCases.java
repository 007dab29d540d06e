package dev.dlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dlock.BackendUnavailableException;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockException;
import dev.dlock.LockListener;
import dev.dlock.internal.Urls;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockRequest;
import dev.dlock.testkit.RecordingContext;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The backend's tables, errors and descriptions, against a real database: tables made, checked,
 * refused and made again when lost; error mapping; no password anywhere.
 */
abstract class LeaseTableCases extends LeaseCases {
  // ---- tables

  @Test
  void aCustomTableIsCreatedAndItsNameColumnSetsTheNameLimit() throws Exception {
    String table = table("locks");
    db().execute("CREATE TABLE " + table + " (name VARCHAR(64) NOT NULL PRIMARY KEY,"
        + " owner VARCHAR(255), token BIGINT NOT NULL, expires_at " + timestampType() + ","
        + " acquired_at " + timestampType() + ")");
    LockClient client = client(JdbcLockBackend.builder().dataSource(db().dataSource()).table(table));
    assertThat(query("SELECT COUNT(*) FROM " + table + "_waiters")).isNotNull();
    client.lock("n".repeat(64)).tryAcquire().orElseThrow().close();
    assertThatThrownBy(() -> client.lock("n".repeat(65))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("64").hasMessageContaining("65");
    LockClient defaults = client(JdbcLockBackend.builder().url(db().url()));
    assertThatThrownBy(() -> defaults.lock("n".repeat(256))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("255");
  }

  /** The timestamp type of the shipped tables, for hand-made ones. */
  abstract String timestampType();

  @Test
  void aTableOfTheWrongShapeIsRefusedNamingTheColumn() throws Exception {
    String ts = timestampType();
    String missingOwner = table("noowner");
    String textToken = table("texttoken");
    String badTime = table("badtime");
    String noKey = table("nokey");
    db().execute(
        "CREATE TABLE " + missingOwner + " (name VARCHAR(255) NOT NULL PRIMARY KEY, token BIGINT NOT NULL,"
            + " expires_at " + ts + ", acquired_at " + ts + ")",
        "CREATE TABLE " + textToken + " (name VARCHAR(255) NOT NULL PRIMARY KEY, owner VARCHAR(255),"
            + " token VARCHAR(20), expires_at " + ts + ", acquired_at " + ts + ")",
        "CREATE TABLE " + badTime + " (name VARCHAR(255) NOT NULL PRIMARY KEY, owner VARCHAR(255),"
            + " token BIGINT NOT NULL, expires_at " + db().badTimestampType() + ", acquired_at " + ts + ")",
        "CREATE TABLE " + noKey + " (name VARCHAR(255) NOT NULL, owner VARCHAR(255),"
            + " token BIGINT NOT NULL, expires_at " + ts + ", acquired_at " + ts + ")");
    assertRefused(missingOwner, "'owner'", "missing");
    assertRefused(textToken, "'token'", "BIGINT");
    assertRefused(badTime, "'expires_at'", timestampType().replaceAll("\\(.*", "").toUpperCase());
    assertRefused(noKey, "'name'", "primary key");
  }

  private void assertRefused(String table, String column, String problem) {
    JdbcLockBackend.Builder builder = JdbcLockBackend.builder().url(db().url()).table(table);
    assertThatThrownBy(() -> client(builder)).isInstanceOf(LockException.class)
        .isNotInstanceOf(BackendUnavailableException.class)
        .hasMessageContaining(table).hasMessageContaining(column).hasMessageContaining(problem);
  }

  @Test
  void aMissingTableIsNotCreatedWhenCreatingIsOff() {
    String table = table("absent");
    JdbcLockBackend.Builder builder =
        JdbcLockBackend.builder().url(db().url()).table(table).createTable(false);
    assertThatThrownBy(() -> client(builder)).isInstanceOf(LockException.class)
        .hasMessageContaining(table).hasMessageContaining("does not exist")
        .hasMessageContaining("CREATE TABLE");
  }

  @Test
  void aDeploymentWithoutTheHoldersTableIsToldItsName() throws Exception {
    String table = table("older");
    client(JdbcLockBackend.builder().url(db().url()).table(table));
    db().execute("DROP TABLE " + table + "_holders");
    JdbcLockBackend.Builder builder =
        JdbcLockBackend.builder().url(db().url()).table(table).createTable(false);
    assertThatThrownBy(() -> client(builder)).isInstanceOf(LockException.class)
        .hasMessageContaining("'" + table + "_holders' does not exist")
        .hasMessageContaining("CREATE TABLE IF NOT EXISTS " + table + "_holders");
  }

  // ---- errors and descriptions

  @Test
  void anSqlErrorIsALockExceptionNeverHeld() throws Exception {
    String table = table("altered");
    LockBackend a = backend(new RecordingContext("a"), JdbcLockBackend.builder().url(db().url()).table(table));
    String name = name();
    granted(a, name, "a:1");
    db().execute("ALTER TABLE " + table + " DROP COLUMN expires_at");
    assertThatThrownBy(() -> a.tryAcquire(LockRequest.exclusive(name, "a:2", LONG, true)))
        .isInstanceOf(LockException.class).isNotInstanceOf(BackendUnavailableException.class)
        .hasMessageContaining(name).hasCauseInstanceOf(SQLException.class);
    assertThatThrownBy(() -> a.renew(List.of(new Grant(name, "a:1", 1)), LONG))
        .isInstanceOf(LockException.class);
  }

  /**
   * The database comes back empty under running clients (a restore, a new cluster at the same
   * address): the next operation makes the tables again and carries on; the client that made them
   * is told to re-check its leases at once, and the holder's renewal reports its grant gone; the
   * waiter is woken, as its place in the queue went too, and gets the lock with a higher token.
   */
  @Test
  void aTableLostWhileRunningIsMadeAgainAndItsHoldersAreTold() throws Exception {
    String table = table("lost");
    RecordingContext holding = new RecordingContext("h");
    RecordingContext waiting = new RecordingContext("w");
    LockBackend h = backend(holding, JdbcLockBackend.builder().url(db().url()).table(table));
    LockBackend w = backend(waiting, JdbcLockBackend.builder().url(db().url()).table(table));
    String name = name();
    Grant held = granted(h, name, "h:1");
    assertThat(w.tryAcquire(LockRequest.exclusive(name, "w:1", LONG, true)).isGranted()).isFalse();
    db().execute("DROP TABLE " + table + "_waiters", "DROP TABLE " + table);

    Grant other = granted(h, name(), "h:2");
    // The client that made the table again (the holder's, unless the waiter's poller came first)
    // is told to re-check its leases at once; every other one learns at its next renewal.
    String told = holding.nextReconnect(Duration.ZERO);
    assertThat(told != null ? told : waiting.nextReconnect(PATIENCE)).as("the remaking client is told")
        .contains(table);
    assertThat(h.renew(List.of(held, other), LONG)).as("renewal after the loss").containsExactly(held);
    assertThat(waiting.nextWakeUp(PATIENCE)).as("the waiter, whose place was lost").isEqualTo(name);
    assertThat(granted(w, name, "w:1").token()).isGreaterThan(held.token());
    assertThat(h.release(held)).isFalse();
  }

  /**
   * An owner asks again for a lock it was granted, as an acquisition does whose first answer was
   * lost after its statement committed: it is granted again, with a token above the first, rather
   * than told the lock is held, by itself, until the lease runs out. Any other owner is refused,
   * and the first grant can no longer be renewed.
   */
  @Test
  void anOwnerAskingAgainForItsOwnGrantGetsItWithAHigherToken() {
    LockBackend a = backend(new RecordingContext("a"));
    String name = name();
    Grant first = granted(a, name, "a:1");

    Grant again = granted(a, name, "a:1");

    assertThat(again.token()).isGreaterThan(first.token());
    Attempt other = a.tryAcquire(LockRequest.exclusive(name, "a:2", LONG, false));
    assertThat(other.isGranted()).as("another owner's attempt, %s", other).isFalse();
    assertThat(other.holder()).contains("a:1");
    assertThat(a.renew(List.of(first, again), LONG)).containsExactly(first);
  }

  /**
   * A queued waiter granted once its queue's table has gone, as when another client making the
   * tables again has made the lock table but not yet the queue's: its place went with the table,
   * and the grant stands. It once failed on leaving that place, made the tables and tried again,
   * found its own grant, and reported the lock held, by itself, until the lease ran out.
   */
  @Test
  void aGrantWhoseQueuePlaceWentWithItsTableStands() throws Exception {
    String table = table("halfmade");
    LockBackend h = backend(new RecordingContext("h"), JdbcLockBackend.builder().url(db().url()).table(table));
    LockBackend w = backend(new RecordingContext("w"), JdbcLockBackend.builder().url(db().url()).table(table));
    String name = name();
    granted(h, name, "h:1");
    assertThat(w.tryAcquire(LockRequest.exclusive(name, "w:1", LONG, true)).isGranted()).as("queued").isFalse();
    db().execute("DROP TABLE " + table + "_waiters", "UPDATE " + table + " SET owner = NULL");

    Attempt a = w.tryAcquire(LockRequest.exclusive(name, "w:1", LONG, true));
    assertThat(a.isGranted()).as("the waiter's attempt, %s", a).isTrue();
    assertThat(query("SELECT owner FROM " + table + " WHERE name = ?", name)).isEqualTo("w:1");
  }

  /**
   * The same through clients: the table is dropped under a holder (lease 6 s, renewed every 2 s)
   * and a client waiting for its lock. The holder hears of its loss before its lease could have
   * run out, so from the backend, not by expiry; the waiter gets the lock; and the holder's client
   * acquires again without a restart.
   */
  @Test
  void aClientWhoseTableIsDroppedCarriesOnAndItsHolderIsTold() throws Exception {
    String table = table("dropped");
    Duration lease = Duration.ofSeconds(6);
    LockClient holder = LockClient.builder().leaseTime(lease)
        .backend(JdbcLockBackend.builder().url(db().url()).table(table).build()).build();
    clients.add(holder);
    CountDownLatch queued = new CountDownLatch(1);
    LockClient waiter = LockClient.builder().listener(new LockListener() {
      @Override
      public void waited(String name) {
        queued.countDown();
      }
    }).backend(JdbcLockBackend.builder().url(db().url()).table(table).build()).build();
    clients.add(waiter);
    String name = name();
    Lease held = holder.lock(name).tryAcquire().orElseThrow();
    FutureTask<Lease> next = new FutureTask<>(() -> waiter.lock(name).acquire(PATIENCE));
    new Thread(next, "waiter").start();
    assertThat(queued.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the waiter queued").isTrue();

    db().execute("DROP TABLE " + table + "_waiters", "DROP TABLE " + table);
    long dropped = System.nanoTime();
    held.lost().toCompletableFuture().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - dropped)).as("the holder told of its loss")
        .isLessThan(lease.minusSeconds(1));
    try (Lease granted = next.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(granted.token()).isGreaterThan(held.token());
    }
    holder.lock(name()).tryAcquire().orElseThrow().close();
  }

  @Test
  void aTableThatCannotBeCreatedIsRefusedWithTheDriversError() {
    JdbcLockBackend.Builder builder = JdbcLockBackend.builder().url(db().url()).table("select");
    assertThatThrownBy(() -> client(builder)).isInstanceOf(LockException.class)
        .isNotInstanceOf(BackendUnavailableException.class)
        .hasMessageContaining("'select'").hasMessageContaining("could not be created")
        .cause().isInstanceOf(SQLException.class);
  }

  @Test
  void aDataSourceBackendDescribesItselfByTheDatabaseUrl() throws SQLException {
    LockBackend a = backend(new RecordingContext("a"), JdbcLockBackend.builder().dataSource(db().dataSource()));
    assertThat(a.describe()).startsWith("jdbc:");
    Grant g = granted(a, name(), "a:1");
    assertThat(a.release(g)).isTrue();
  }

  @Test
  void theUrlIsDescribedWithoutItsPassword() {
    LockBackend a = backend(new RecordingContext("a"), JdbcLockBackend.builder().url(db().passwordUrl()));
    assertThat(a.describe()).contains("***").doesNotContain(TestDatabase.SECRET);
  }

  /** URL forms carrying {@link TestDatabase#SECRET} that reach the database. */
  abstract List<String> workingSecretUrls();

  /**
   * URL forms carrying {@link TestDatabase#SECRET} that cannot connect: a port nothing listens on,
   * a database that does not exist, a wrong password (which contains the secret) where the test
   * server checks passwords.
   */
  abstract List<String> failingSecretUrls() throws Exception;

  /** A DataSource holding {@link TestDatabase#SECRET} as its password, which works or not. */
  abstract DataSource secretDataSource(boolean works) throws Exception;

  /**
   * Every URL form and a DataSource, failing to connect and working: the secret shows in no
   * exception of the whole chain, in no client's toString or describe(), in no later refusal,
   * and in nothing logged meanwhile by any thread (the pool's log included).
   */
  @Test
  void noUrlFormOrDataSourceShowsItsPassword() throws Exception {
    String secret = TestDatabase.SECRET;
    List<Throwable> thrown = new ArrayList<>();
    List<String> described = new ArrayList<>();
    String log = Secrets.capturingLog(() -> {
      for (String url : failingSecretUrls()) {
        Throwable t = catchThrowable(() -> LockClient.connect(url).close());
        assertThat(t).as("connecting to %s", Urls.redact(url)).isInstanceOf(LockException.class);
        thrown.add(t);
      }
      DataSource failing = secretDataSource(false);
      Throwable t = catchThrowable(() -> client(JdbcLockBackend.builder().dataSource(failing)));
      assertThat(t).as("a DataSource that cannot connect").isInstanceOf(LockException.class);
      thrown.add(t);

      List<LockClient> working = new ArrayList<>();
      for (String url : workingSecretUrls()) {
        LockClient c = LockClient.connect(url);
        clients.add(c);
        working.add(c);
      }
      working.add(client(JdbcLockBackend.builder().dataSource(secretDataSource(true))));
      String name = name();
      try (Lease held = working.get(0).lock(name).tryAcquire().orElseThrow()) {
        for (LockClient c : working.subList(1, working.size())) {
          described.add(c.toString());
          thrown.add(catchThrowable(() -> c.lock(name).acquire(Duration.ofMillis(50))));
        }
        described.add(working.get(0).toString());
      }
    });
    assertThat(thrown).doesNotContainNull();
    thrown.forEach(t -> Secrets.assertHidden(t, secret));
    assertThat(described).allSatisfy(d -> assertThat(d).doesNotContain(secret));
    assertThat(log).as("the log").doesNotContain(secret);
  }

  @Test
  void aLockClientConnectsByUrl() {
    try (LockClient client = LockClient.connect(db().url())) {
      String name = name();
      var first = client.lock(name).tryAcquire().orElseThrow();
      first.close();
      try (LockClient other = LockClient.connect(db().url())) {
        var lease = other.lock(name).tryAcquire().orElseThrow();
        assertThat(lease.token()).isGreaterThan(first.token());
        lease.close();
      }
    }
  }

  @Test
  void renewedRowsMoveTheirExpiryByTheDatabaseClock() throws SQLException {
    LockBackend a = backend(new RecordingContext("a"));
    Grant g = granted(a, name(), "a:1");
    shiftExpiry(g.name(), 2);
    assertThat(a.renew(Set.of(g), Duration.ofHours(2))).isEmpty();
    LockBackend b = backend(new RecordingContext("b"));
    Attempt held = b.tryAcquire(LockRequest.exclusive(g.name(), "b:1", LONG, false));
    assertThat(held.retryAfter()).isGreaterThan(Duration.ofMinutes(110));
  }
}

package dev.dlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockInfo;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.SpareTokens;
import dev.dlock.testkit.RecordingContext;
import dev.dlock.testkit.StatementCounter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The backend's own promises, driven through the SPI against a real database: owner and token
 * checks, tokens that survive releases and lost rows, expiry and retry hints by the database
 * clock, one FIFO wake-up per release and batch renewal (tables and errors: see
 * {@link LeaseTableCases}). Each database runs it in a subclass that starts the server.
 */
abstract class LeaseBackendCases extends LeaseTableCases {
  /** How far the database clock may be from this JVM's: the same machine, with room for a slow CI. */
  private static final long CLOCK_SLACK_MICROS = TimeUnit.SECONDS.toMicros(60);

  /** A lock held by owner "h:1" of {@code holder}, and owner "w1:1" of another backend queued for it. */
  private record HeldWithWaiter(LockBackend holder, LockBackend waiterBackend, RecordingContext waiting,
      String name, Grant held) {}

  private HeldWithWaiter heldWithWaiter(LockBackend holder) {
    RecordingContext waiting = new RecordingContext("w1");
    LockBackend b1 = backend(waiting);
    String name = name();
    Grant held = granted(holder, name, "h:1");
    assertThat(b1.tryAcquire(LockRequest.exclusive(name, "w1:1", LONG, true)).isGranted()).isFalse();
    return new HeldWithWaiter(holder, b1, waiting, name, held);
  }

  // ---- grant, held, renew, release

  @Test
  void grantHeldRenewAndReleaseCheckOwnerAndToken() {
    LockBackend a = backend(new RecordingContext("a"));
    LockBackend b = backend(new RecordingContext("b"));
    String name = name();
    Grant g = granted(a, name, "a:1");

    Attempt held = b.tryAcquire(LockRequest.exclusive(name, "b:1", LONG, false));
    assertThat(held.isGranted()).isFalse();
    assertThat(held.holder()).contains("a:1");
    assertThat(held.retryAfter()).isBetween(LONG.minusSeconds(10), LONG);

    Grant wrongToken = new Grant(name, "a:1", g.token() + 1);
    Grant wrongOwner = new Grant(name, "b:1", g.token());
    assertThat(a.renew(List.of(g, wrongToken, wrongOwner), LONG))
        .containsExactlyInAnyOrder(wrongToken, wrongOwner);
    assertThat(b.release(wrongOwner)).isFalse();
    assertThat(a.release(wrongToken)).isFalse();
    assertThat(b.tryAcquire(LockRequest.exclusive(name, "b:2", LONG, false)).isGranted()).as("after failed releases").isFalse();
    assertThat(a.release(g)).isTrue();
    assertThat(a.release(g)).as("a second release").isFalse();
    assertThat(a.renew(List.of(g), LONG)).containsExactly(g);
    assertThat(granted(b, name, "b:3").token()).isGreaterThan(g.token());
  }

  @Test
  void tokensRiseAcrossReleasesFromTheDatabaseClock() throws SQLException {
    LockBackend a = backend(new RecordingContext("a"));
    String name = name();
    long last = 0;
    for (int i = 1; i <= 3; i++) {
      long before = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
      Grant g = granted(a, name, "a:" + i);
      assertThat(g.token()).isGreaterThan(last)
          .as("microseconds of the database clock (this machine's)")
          .isBetween(before - CLOCK_SLACK_MICROS, before + CLOCK_SLACK_MICROS);
      last = g.token();
      assertThat(a.release(g)).isTrue();
      assertThat(query("SELECT owner FROM dlock_locks WHERE name = ?", name)).isNull();
      assertThat(((Number) query("SELECT token FROM dlock_locks WHERE name = ?", name)).longValue())
          .isEqualTo(last);
    }
    // A counter ahead of the clock (tokens of an older scheme, or a clock set back) keeps counting,
    // and leaves the tokens the engine hands to other threads of the holder's client spare.
    db().execute("UPDATE dlock_locks SET token = " + (last + 3_600_000_000L) + " WHERE name = '" + name + "'");
    assertThat(((SpareTokens) a).spareTokens()).isEqualTo(15);
    Grant ahead = granted(a, name, "a:4");
    assertThat(ahead.token()).isEqualTo(last + 3_600_000_000L + 16);
    assertThat(a.release(ahead)).isTrue();
    assertThat(granted(a, name, "a:5").token()).isEqualTo(ahead.token() + 16);
  }

  @Test
  void tokensKeepRisingAfterTheWholeTableIsEmptied() throws Exception {
    String table = table("wiped");
    RecordingContext context = new RecordingContext("a");
    LockBackend a = backend(context, JdbcLockBackend.builder().url(db().url()).table(table));
    List<String> names = List.of(name(), name());
    long highest = 0;
    for (int i = 0; i < 3; i++) {
      for (String name : names) {
        Grant g = granted(a, name, "a:" + i);
        highest = Math.max(highest, g.token());
        assertThat(a.release(g)).isTrue();
      }
    }
    Grant held = granted(a, names.get(0), "a:held");
    db().execute("DELETE FROM " + table + "_waiters", "DELETE FROM " + table);

    LockBackend b = backend(new RecordingContext("b"), JdbcLockBackend.builder().url(db().url()).table(table));
    for (String name : names) {
      assertThat(granted(b, name, "b:1").token()).as("the first token of %s after the wipe", name)
          .isGreaterThan(Math.max(highest, held.token()));
    }
    assertThat(a.renew(List.of(held), LONG)).as("the holder's grant, wiped").containsExactly(held);
  }

  @Test
  void expiryAndRetryHintsFollowTheDatabaseClock() throws SQLException {
    LockBackend a = backend(new RecordingContext("a"));
    LockBackend b = backend(new RecordingContext("b"));
    String name = name();
    // Granted for 100 ms, but the row says one hour from the database's now: it is held for that.
    Attempt first = a.tryAcquire(LockRequest.exclusive(name, "a:1", Duration.ofMillis(100), false));
    assertThat(first.isGranted()).isTrue();
    shiftExpiry(name, 3600);
    Attempt held = b.tryAcquire(LockRequest.exclusive(name, "b:1", LONG, false));
    assertThat(held.isGranted()).isFalse();
    assertThat(held.retryAfter()).isBetween(Duration.ofMinutes(55), Duration.ofMinutes(60));

    // Granted for 30 s, but the row says a second ago: it is free, and the old grant is gone.
    Grant g = granted(a, name(), "a:2");
    shiftExpiry(g.name(), -1);
    assertThat(a.renew(List.of(g), LONG)).containsExactly(g);
    Grant next = granted(b, g.name(), "b:2");
    assertThat(next.token()).isGreaterThan(g.token());
    assertThat(a.release(g)).isFalse();
    assertThat(b.release(next)).isTrue();
  }

  @Test
  void inspectionReportsHeldUnexpiredGrantsByTheDatabaseClock() throws SQLException {
    LockBackend a = backend(new RecordingContext("a"));
    String prefix = name();
    Grant b = granted(a, prefix + "-b", "a:1");
    Grant c = granted(a, prefix + "-c", "a:2");
    Grant released = granted(a, prefix + "-a", "a:3");
    Grant expired = granted(a, prefix + "-d", "a:4");
    assertThat(a.release(released)).isTrue();
    shiftExpiry(expired.name(), -1);
    shiftExpiry(c.name(), 600);

    LockInfo info = a.inspect(b.name()).orElseThrow();
    assertThat(info.owner()).isEqualTo("a:1");
    assertThat(info.token()).isEqualTo(b.token());
    assertThat(info.remaining()).isBetween(LONG.minusSeconds(10), LONG);
    assertThat(a.inspect(released.name())).isEmpty();
    assertThat(a.inspect(expired.name())).isEmpty();
    assertThat(a.inspect(name())).as("a name never used").isEmpty();
    List<LockInfo> mine = a.inspectAll().stream().filter(i -> i.name().startsWith(prefix)).toList();
    assertThat(mine).extracting(LockInfo::name).containsExactly(b.name(), c.name());
    assertThat(mine.get(1).remaining()).isBetween(Duration.ofSeconds(590), Duration.ofSeconds(600));
  }

  @Test
  void renewalOfManyLeasesReportsExactlyTheLostOnes() throws SQLException {
    LockBackend a = backend(new RecordingContext("a"));
    List<Grant> grants = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      grants.add(granted(a, name() + "-" + "x".repeat(i), "a:" + i));
    }
    assertThat(a.renew(grants, LONG)).isEmpty();
    shiftExpiry(grants.get(3).name(), -1);
    shiftExpiry(grants.get(17).name(), -1);
    assertThat(a.renew(grants, LONG)).containsExactlyInAnyOrder(grants.get(3), grants.get(17));
    assertThat(a.renew(List.of(), LONG)).isEmpty();
  }

  /** A grant of {@code kind} (PERMIT with 2 permits), made at once, to {@code owner}. */
  static Grant granted(LockBackend b, String name, LockKind kind, String owner) {
    int permits = kind == LockKind.PERMIT ? 2 : 1;
    Attempt a = b.tryAcquire(new LockRequest(name, kind, permits, owner, LONG, false, null));
    assertThat(a.isGranted()).as("%s %s for %s", kind, a, owner).isTrue();
    return new Grant(name, owner, a.token(), kind);
  }

  /**
   * The fair, read-write and semaphore locks, as the exclusive lock (LeaseTableCases): an owner
   * asking again for a grant whose answer it lost is granted again, with a higher token, and its
   * lost grant no longer renews. Its lost grant does not count against it: another owner is still
   * refused the fair and the write lock, and a semaphore of two permits still has one for another.
   */
  @Test
  void anOwnerAskingAgainForItsOwnGrantOfAnyKindGetsItWithAHigherToken() {
    LockBackend a = backend(new RecordingContext("a"));
    for (LockKind kind : List.of(LockKind.FAIR, LockKind.WRITE, LockKind.READ, LockKind.PERMIT)) {
      String name = name();
      Grant first = granted(a, name, kind, "a:1");

      Grant again = granted(a, name, kind, "a:1");

      assertThat(again.token()).as("%s: the second token", kind).isGreaterThan(first.token());
      assertThat(a.renew(List.of(first, again), LONG)).as("%s: the grants that no longer renew", kind)
          .containsExactly(first);
      if (kind == LockKind.PERMIT) {
        granted(a, name, kind, "a:2");
      } else if (kind != LockKind.READ) {
        Attempt other = a.tryAcquire(new LockRequest(name, kind, 1, "a:2", LONG, false, null));
        assertThat(other.isGranted()).as("%s: another owner's attempt, %s", kind, other).isFalse();
      }
    }
  }

  @Test
  void renewalOfEveryKindAtOnceReportsExactlyTheLostOnes() throws SQLException {
    LockBackend a = backend(new RecordingContext("a"));
    String name = name();
    Grant exclusive = granted(a, name, "a:1");
    Grant fair = granted(a, name, LockKind.FAIR, "a:2");
    Grant p1 = granted(a, name, LockKind.PERMIT, "a:3");
    Grant p2 = granted(a, name, LockKind.PERMIT, "a:4");
    Grant r1 = granted(a, name, LockKind.READ, "a:5");
    Grant r2 = granted(a, name, LockKind.READ, "a:6");
    assertThat(p2.token()).isGreaterThan(p1.token());
    assertThat(r2.token()).isGreaterThan(r1.token());
    List<Grant> all = List.of(exclusive, fair, p1, p2, r1, r2);
    assertThat(a.renew(all, LONG)).isEmpty();

    shiftExpiry(name, -1);
    try (Connection c = db().dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("DELETE FROM dlock_locks_holders WHERE owner = ?")) {
      ps.setString(1, p1.owner());
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
    assertThat(a.renew(all, LONG)).containsExactlyInAnyOrder(exclusive, p1);

    LockBackend b = backend(new RecordingContext("b"));
    assertThat(b.tryAcquire(new LockRequest(name, LockKind.WRITE, 1, "b:1", LONG, false, null)).isGranted())
        .as("a writer while two read").isFalse();
    assertThat(a.release(r1)).isTrue();
    assertThat(a.release(r2)).isTrue();
    assertThat(a.release(r2)).as("released twice").isFalse();
    assertThat(granted(b, name, LockKind.WRITE, "b:1").token()).isGreaterThan(r2.token());
  }

  /**
   * A renewal of more than {@link Dialect#RENEW_CHUNK} grants sends one statement per chunk, and a
   * row stolen past the first chunk costs that grant only.
   */
  @Test
  void renewalOfMoreThanAChunkSendsAStatementPerChunkAndReportsOnlyTheLostOne() throws SQLException {
    int n = Dialect.RENEW_CHUNK + 100;
    StatementCounter counting = StatementCounter.onThisThread(LeaseBackend.RENEW_HELPER);
    LockBackend a = backend(new RecordingContext("a"),
        JdbcLockBackend.builder().dataSource(counting.wrap(db().dataSource())));
    List<Grant> grants = heldRows(n);
    long before = counting.statements();
    assertThat(a.renew(grants, LONG)).isEmpty();
    assertThat(counting.statements() - before).as("statements renewing %d grants", n).isEqualTo(2);

    Grant stolen = grants.get(Dialect.RENEW_CHUNK + 50);
    db().execute("UPDATE dlock_locks SET owner = 'thief' WHERE name = '" + stolen.name() + "'");
    assertThat(a.renew(grants, LONG)).containsExactly(stolen);
  }

  /**
   * {@code n} rows held by owners a:0, a:1, ... for ten minutes, written directly (1,100 grants taken
   * one by one would cost seconds on MariaDB and H2); their grants.
   */
  final List<Grant> heldRows(int n) throws SQLException {
    String prefix = name() + "-";
    List<Grant> grants = new ArrayList<>();
    try (Connection c = db().dataSource().getConnection();
        PreparedStatement insert = c.prepareStatement("INSERT INTO dlock_locks (name, owner, token) VALUES (?, ?, ?)");
        PreparedStatement expiry = c.prepareStatement(shiftExpirySql().replace("name = ?", "name LIKE ?"))) {
      for (int i = 0; i < n; i++) {
        Grant g = new Grant(prefix + i, "a:" + i, 1_000 + i);
        grants.add(g);
        insert.setString(1, g.name());
        insert.setString(2, g.owner());
        insert.setLong(3, g.token());
        insert.addBatch();
      }
      insert.executeBatch();
      expiry.setInt(1, 600);
      expiry.setString(2, prefix + "%");
      assertThat(expiry.executeUpdate()).isEqualTo(n);
    }
    return grants;
  }

  // ---- waiting

  @Test
  void eachReleaseWakesTheOldestWaitingClientOnly() throws InterruptedException {
    LockBackend holder = backend(new RecordingContext("h"));
    RecordingContext first = new RecordingContext("w1");
    RecordingContext second = new RecordingContext("w2");
    LockBackend b1 = backend(first);
    LockBackend b2 = backend(second);
    String name = name();
    Grant held = granted(holder, name, "h:1");
    assertThat(b1.tryAcquire(LockRequest.exclusive(name, "w1:1", LONG, true)).isGranted()).isFalse();
    assertThat(b2.tryAcquire(LockRequest.exclusive(name, "w2:1", LONG, true)).isGranted()).isFalse();

    assertThat(holder.release(held)).isTrue();
    assertThat(first.nextWakeUp(PATIENCE)).isEqualTo(name);
    Grant g1 = granted(b1, name, "w1:1");
    assertThat(second.nextWakeUp(Duration.ofMillis(300))).as("the younger waiter").isNull();

    assertThat(b1.release(g1)).isTrue();
    assertThat(second.nextWakeUp(PATIENCE)).isEqualTo(name);
    assertThat(granted(b2, name, "w2:1").token()).isGreaterThan(g1.token());
    assertThat(first.nextWakeUp(Duration.ZERO)).isNull();
  }


  @Test
  void aWakeUpThatFailsLeavesTheReleaseDoneAndTheWaiterQueued() throws Exception {
    HeldWithWaiter q = heldWithWaiter(backend(new RecordingContext("h"),
        JdbcLockBackend.builder().url(db().url()).queryTimeout(Duration.ofSeconds(1))));

    try (Connection c = db().dataSource().getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT owner FROM dlock_locks_waiters WHERE name = ? FOR UPDATE")) {
        ps.setString(1, q.name());
        try (ResultSet rs = ps.executeQuery()) {
          assertThat(rs.next()).as("the waiter's queue row").isTrue();
        }
      }
      // The wake-up waits on the queue row locked here until its 1 s timeout: the release stands.
      assertThat(q.holder().release(q.held())).isTrue();
      c.rollback();
    }
    assertThat(q.waiting().nextWakeUp(Duration.ZERO)).as("woken by the failed wake-up").isNull();
    assertThat(q.waiterBackend().tryAcquire(LockRequest.exclusive(q.name(), "w1:1", LONG, true)).isGranted()).as("the waiter's own retry").isTrue();
  }

  @Test
  void aReleaseByAnotherOwnerFreesNothingAndWakesNoOne() throws InterruptedException {
    HeldWithWaiter q = heldWithWaiter(backend(new RecordingContext("h")));

    assertThat(q.waiterBackend().release(new Grant(q.name(), "w1:1", q.held().token()))).isFalse();
    assertThat(q.holder().release(new Grant(q.name(), "h:1", q.held().token() + 1))).isFalse();
    assertThat(q.waiting().nextWakeUp(Duration.ofMillis(300))).isNull();
    assertThat(q.waiterBackend().tryAcquire(LockRequest.exclusive(q.name(), "w1:1", LONG, true)).isGranted()).isFalse();

    assertThat(q.holder().release(q.held())).isTrue();
    assertThat(q.waiting().nextWakeUp(PATIENCE)).isEqualTo(q.name());
  }
  @Test
  void aCancelledWaiterIsNotWoken() throws InterruptedException, SQLException {
    LockBackend holder = backend(new RecordingContext("h"));
    RecordingContext gaveUp = new RecordingContext("w1");
    RecordingContext waiting = new RecordingContext("w2");
    LockBackend b1 = backend(gaveUp);
    LockBackend b2 = backend(waiting);
    String name = name();
    Grant held = granted(holder, name, "h:1");
    assertThat(b1.tryAcquire(LockRequest.exclusive(name, "w1:1", LONG, true)).isGranted()).isFalse();
    assertThat(b2.tryAcquire(LockRequest.exclusive(name, "w2:1", LONG, true)).isGranted()).isFalse();
    b1.cancel(name, "w1:1");
    assertThat(query("SELECT owner FROM dlock_locks_waiters WHERE name = ? AND owner = ?", name, "w1:1"))
        .isNull();
    assertThat(holder.release(held)).isTrue();
    assertThat(waiting.nextWakeUp(PATIENCE)).isEqualTo(name);
    assertThat(gaveUp.nextWakeUp(Duration.ZERO)).isNull();
  }

  @Test
  void cancelReleasesAGrantMadeToTheCancelledOwner() {
    LockBackend a = backend(new RecordingContext("a"));
    LockBackend b = backend(new RecordingContext("b"));
    String name = name();
    granted(a, name, "a:1");
    a.cancel(name, "a:1");
    granted(b, name, "b:1");
  }

  @Test
  void aOneShotTryLeavesNoQueueEntry() throws SQLException {
    LockBackend a = backend(new RecordingContext("a"));
    LockBackend b = backend(new RecordingContext("b"));
    String name = name();
    granted(a, name, "a:1");
    assertThat(b.tryAcquire(LockRequest.exclusive(name, "b:1", LONG, false)).isGranted()).isFalse();
    assertThat(query("SELECT owner FROM dlock_locks_waiters WHERE name = ?", name)).isNull();
  }

  @Test
  void closingABackendRemovesItsQueueEntries() throws SQLException {
    LockBackend a = backend(new RecordingContext("a"));
    LockBackend b = backend(new RecordingContext("b"));
    String name = name();
    granted(a, name, "a:1");
    assertThat(b.tryAcquire(LockRequest.exclusive(name, "b:1", LONG, true)).isGranted()).isFalse();
    assertThat(query("SELECT owner FROM dlock_locks_waiters WHERE name = ?", name)).isEqualTo("b:1");
    b.close();
    assertThat(query("SELECT owner FROM dlock_locks_waiters WHERE name = ?", name)).isNull();
  }
}

package dev.dlock.jdbc;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The fair, read-write and semaphore lease locks on a table. Why this shape: several holders of one
 * name need a row each, so they live in {@code {table}_holders} beside an anchor row per lock; a
 * grant, a release and a cancel each lock the anchor first and then decide in Java from the live
 * holders and the live queue, in one transaction, so the rules (first come, first served; a
 * queued writer holds back later readers; at most {@code permits} holders) are written once for
 * all three databases. A token is the larger of the anchor's last token + 1 and the database
 * clock in microseconds, as the exclusive lock's. Waiters queue in the exclusive lock's waiter
 * table under a key that names their kind, and keep their place when woken: a release only tells
 * the clients whose waiters may now be granted (a NOTIFY, or their inbox cleared for the poller to
 * see), and each of them is granted by its own retry, in queue order.
 */
final class JdbcKinds {
  /** How long a waiter may wait when only the queue, not a holder, holds it back. */
  private static final Duration QUEUED_RETRY = Inbox.HEARTBEAT;

  private final Database db;
  private final Dialect dialect;
  private final KindSql sql;
  private final Dialect renewer;
  private final Waiters waiters;
  private final Inbox inbox;
  /** The kind of each owner of this client with an acquire in flight, for cancel, which gets no kind. */
  private final ConcurrentHashMap<String, LockKind> pending = new ConcurrentHashMap<>();

  JdbcKinds(Database db, Dialect dialect, Waiters waiters, Inbox inbox) {
    this.db = db;
    this.dialect = dialect;
    this.sql = new KindSql(dialect);
    this.renewer = onHolders(dialect);
    this.waiters = waiters;
    this.inbox = inbox;
  }

  /** The key a waiter of {@code kind} queues under: its lock's letter, its kind's, '|' and the owner. */
  static String queueKey(LockKind kind, String owner) {
    return switch (kind) {
      case FAIR -> "FF|";
      case READ -> "GR|";
      case WRITE -> "GW|";
      case PERMIT -> "PP|";
      case EXCLUSIVE -> throw new IllegalArgumentException("kind must not be EXCLUSIVE here");
    } + owner;
  }

  /** The lock a kind belongs to: READ and WRITE share one. */
  private static char lockLetter(LockKind kind) {
    return queueKey(kind, "").charAt(0);
  }

  /** The two holder kinds of the lock of {@code kind}, for the statements' {@code kind IN (?, ?)}. */
  private static String[] holderKinds(LockKind kind) {
    return switch (kind) {
      case READ, WRITE -> new String[] {"R", "W"};
      default -> new String[] {holderKind(kind), holderKind(kind)};
    };
  }

  private static String holderKind(LockKind kind) {
    return switch (kind) {
      case FAIR -> "F";
      case READ -> "R";
      case WRITE -> "W";
      case PERMIT -> "P";
      case EXCLUSIVE -> throw new IllegalArgumentException("kind must not be EXCLUSIVE here");
    };
  }

  private record Holder(String owner, String kind, long microsLeft) {}

  private record Waiter(String key, boolean woken) {
    char kind() {
      return key.charAt(1);
    }
  }

  /** What the locked anchor holds: the last token, the permit count, and the database clock. */
  private record Anchor(long token, long permits, long clockMicros) {}

  Attempt tryAcquire(LockRequest r, long leaseMicros) {
    String key = queueKey(r.kind(), r.owner());
    if (r.willWait()) {
      pending.put(r.owner(), r.kind());
    }
    return db.run("acquire lock", r.name(), c -> {
      Attempt a = Dialect.inTransaction(c, () -> grant(c, r, key, leaseMicros));
      if (a.isGranted() || !r.willWait() || !inbox.healthy()) {
        return answer(r, a);
      }
      if (!waiters.isArmed(key)) {
        update(c, sql.arm, r.name(), key, inbox.id);
        waiters.armed(r.name(), key);
        inbox.nudge();
        // A release between the refusal and the queueing found no one to wake: look again.
        a = Dialect.inTransaction(c, () -> grant(c, r, key, leaseMicros));
      }
      return answer(r, a);
    });
  }

  private Attempt answer(LockRequest r, Attempt a) {
    if (a.isGranted()) {
      pending.remove(r.owner());
      waiters.disarm(queueKey(r.kind(), r.owner()));
    } else if (r.willWait() && !inbox.healthy()) {
      return Attempt.held(min(a.retryAfter(), LeaseBackend.DEGRADED_POLL), a.holder().orElse(null));
    }
    return a;
  }

  /** One try, in the caller's transaction: grants if the holders and the queue ahead allow it. */
  private Attempt grant(Connection c, LockRequest r, String key, long leaseMicros) throws SQLException {
    Anchor anchor = lockAnchor(c, r);
    String[] kinds = holderKinds(r.kind());
    update(c, sql.purgeExpired, r.name(), kinds[0], kinds[1]);
    List<Holder> holders = holders(c, r.name(), kinds);
    // A row of this owner is a grant whose answer it never had (a commit whose reply was lost, or
    // work that Database.run ran again): an owner stands for one acquisition, so the row goes and
    // the grant is made anew, with a higher token, rather than waited for, by itself, until its
    // lease runs out.
    if (holders.removeIf(h -> h.owner().equals(r.owner()))) {
      update(c, sql.clear, r.name(), r.owner());
    }
    long permits = anchor.permits();
    if (r.kind() == LockKind.PERMIT && permits != r.permits()) {
      if (!holders.isEmpty()) {
        throw new IllegalArgumentException(String.format("semaphore '%s' is in use with %d permits, not"
            + " %d: every client must use the same permits", r.name(), permits, r.permits()));
      }
      permits = r.permits();
    }
    Holder blocker = blocker(r, holders, permits);
    if (blocker != null) {
      return Attempt.held(left(blocker.microsLeft()), blocker.owner());
    }
    if (r.writer() == null && queuedAhead(c, r, key, holders.size(), permits)) {
      return Attempt.held(QUEUED_RETRY, holders.isEmpty() ? null : holders.get(0).owner());
    }
    long token = Math.max(anchor.token() + 1, anchor.clockMicros());
    update(c, sql.updateAnchor, token, permits, r.name(), anchorOwner(r.kind()));
    update(c, sql.insertHolder, r.name(), r.owner(), holderKind(r.kind()), token, leaseMicros);
    update(c, sql.leave, r.name(), key);
    return Attempt.granted(token);
  }

  /** The holder that excludes {@code r}, or null if the holders let it in. */
  private static @Nullable Holder blocker(LockRequest r, List<Holder> holders, long permits) {
    if (holders.isEmpty()) {
      return null;
    }
    return switch (r.kind()) {
      case READ -> holders.stream()
          .filter(h -> h.kind().equals("W") && !h.owner().equals(r.writer())).findFirst().orElse(null);
      case PERMIT -> holders.size() < permits ? null : holders.get(0);
      default -> holders.get(0);
    };
  }

  /** Whether waiters queued before {@code key} come first: for a reader only a writer does. */
  private boolean queuedAhead(Connection c, LockRequest r, String key, int held, long permits)
      throws SQLException {
    int ahead = 0;
    for (Waiter w : queue(c, r.name(), r.kind())) {
      if (w.key().equals(key)) {
        break;
      }
      if (r.kind() != LockKind.READ && r.kind() != LockKind.PERMIT || w.kind() == 'W') {
        return true;
      }
      ahead++;
    }
    return r.kind() == LockKind.PERMIT && held + ahead >= permits;
  }

  boolean release(Grant g) {
    return db.run("release lock", g.name(), c -> Dialect.inTransaction(c, () -> {
      lockAnchor(c, g.name(), g.kind());
      boolean released = update(c, sql.release, g.name(), g.owner(), g.token()) == 1;
      wakeNext(c, g.name(), g.kind());
      return released;
    }));
  }

  /**
   * Gives up the wait of {@code owner} if it waits for one of these kinds: removes its place and any
   * grant made to it meanwhile, and wakes whom that lets in. False if it was not such a waiter.
   */
  boolean cancel(String name, String owner) {
    LockKind kind = pending.remove(owner);
    if (kind == null) {
      return false;
    }
    String key = queueKey(kind, owner);
    waiters.disarm(key);
    db.run("cancel the wait for lock", name, c -> Dialect.inTransaction(c, () -> {
      lockAnchor(c, name, kind);
      update(c, sql.leave, name, key);
      update(c, sql.clear, name, owner);
      wakeNext(c, name, kind);
      return true;
    }));
    return true;
  }

  /**
   * Tells the clients whose waiters may now be granted, in queue order: the head if nobody holds
   * the lock, or every reader before the next writer while no writer holds it, or as many permit
   * waiters as permits are free. A waiter already told and not yet back is counted, not told again.
   */
  private void wakeNext(Connection c, String name, LockKind kind) throws SQLException {
    String[] kinds = holderKinds(kind);
    update(c, sql.purgeExpired, name, kinds[0], kinds[1]);
    List<Holder> holders = holders(c, name, kinds);
    boolean writerHeld = holders.stream().anyMatch(h -> h.kind().equals("W"));
    long free = kind == LockKind.PERMIT ? anchorPermits(c, name) - holders.size() : 0;
    List<Waiter> go = new ArrayList<>();
    for (Waiter w : queue(c, name, kind)) {
      boolean next = switch (w.kind()) {
        case 'R' -> !writerHeld;
        case 'P' -> free-- > 0;
        default -> go.isEmpty() && holders.isEmpty();
      };
      if (!next) {
        break;
      }
      go.add(w);
      if (w.kind() != 'R' && w.kind() != 'P') {
        break;
      }
    }
    for (Waiter w : go) {
      if (!w.woken()) {
        wake(c, name, w.key());
      }
    }
  }

  private void wake(Connection c, String name, String key) throws SQLException {
    if (!sql.wakeIsQuery) {
      update(c, sql.wake, name, key);
      return;
    }
    try (PreparedStatement ps = dialect.prepare(c, sql.wake)) {
      ps.setString(1, name);
      ps.setString(2, key);
      ps.executeQuery().close();
    }
  }

  private Anchor lockAnchor(Connection c, LockRequest r) throws SQLException {
    return lockAnchor(c, r.name(), r.kind(), r.permits());
  }

  private Anchor lockAnchor(Connection c, String name, LockKind kind) throws SQLException {
    return lockAnchor(c, name, kind, 1);
  }

  /**
   * Locks the anchor row of the lock for the rest of the transaction, adding it first (committed
   * on its own, so two clients adding it at once do not abort each other's transaction).
   */
  private Anchor lockAnchor(Connection c, String name, LockKind kind, int permits) throws SQLException {
    String owner = anchorOwner(kind);
    for (int i = 0; ; i++) {
      try (PreparedStatement ps = dialect.prepare(c, sql.lockAnchor)) {
        ps.setString(1, name);
        ps.setString(2, owner);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return new Anchor(rs.getLong(1), rs.getLong(2), rs.getLong(3));
          }
        }
      }
      if (i > 0) {
        throw new SQLException("the anchor row of lock '" + name + "' in " + dialect.table
            + "_holders vanished while it was locked");
      }
      c.commit();
      c.setAutoCommit(true);
      try {
        update(c, sql.addAnchor, name, owner, "#", (long) permits);
      } catch (SQLException e) {
        if (!Dialect.isDuplicateKey(e)) {
          throw e;
        }
      } finally {
        c.setAutoCommit(false);
      }
    }
  }

  private long anchorPermits(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = dialect.prepare(c, sql.lockAnchor)) {
      ps.setString(1, name);
      ps.setString(2, anchorOwner(LockKind.PERMIT));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(2) : 0;
      }
    }
  }

  private static String anchorOwner(LockKind kind) {
    return "#" + lockLetter(kind);
  }

  private List<Holder> holders(Connection c, String name, String[] kinds) throws SQLException {
    List<Holder> found = new ArrayList<>();
    try (PreparedStatement ps = dialect.prepare(c, sql.holders)) {
      ps.setString(1, name);
      ps.setString(2, kinds[0]);
      ps.setString(3, kinds[1]);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          found.add(new Holder(rs.getString(1), rs.getString(2), rs.getLong(3)));
        }
      }
    }
    return found;
  }

  private List<Waiter> queue(Connection c, String name, LockKind kind) throws SQLException {
    List<Waiter> found = new ArrayList<>();
    try (PreparedStatement ps = dialect.prepare(c, sql.queue)) {
      ps.setString(1, name);
      ps.setString(2, lockLetter(kind) + "_|%");
      ps.setLong(3, Inbox.LIVE.toNanos() / 1000);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          found.add(new Waiter(rs.getString(1), rs.getString(2).isEmpty()));
        }
      }
    }
    return found;
  }

  /**
   * Extends the leases of {@code grants}, all of these kinds, with the statements the dialect
   * renews exclusive leases with (one per chunk), run on the holders table; returns those extended.
   */
  Set<Grant> renew(Connection c, List<Grant> grants, long leaseMicros) throws SQLException {
    Set<Grant> extended = new HashSet<>();
    for (Grant g : renewer.renew(c, grants, leaseMicros)) {
      extended.add(new Grant(g.name(), g.owner(), g.token()));
    }
    Set<Grant> renewed = new HashSet<>();
    for (Grant g : grants) {
      if (extended.contains(new Grant(g.name(), g.owner(), g.token()))) {
        renewed.add(g);
      }
    }
    return renewed;
  }

  /** The dialect's statements on the holders table, whose columns renewal reads are the lock table's. */
  private static Dialect onHolders(Dialect d) {
    String holders = d.table + "_holders";
    if (d instanceof PostgresDialect) {
      return new PostgresDialect(holders, d.timeoutSeconds());
    }
    if (d instanceof MariaDbDialect) {
      return new MariaDbDialect(holders, d.timeoutSeconds(), false);
    }
    return new H2Dialect(holders, d.timeoutSeconds());
  }

  private int update(Connection c, String statement, Object... args) throws SQLException {
    try (PreparedStatement ps = dialect.prepare(c, statement)) {
      for (int i = 0; i < args.length; i++) {
        if (args[i] instanceof Long l) {
          ps.setLong(i + 1, l);
        } else {
          ps.setString(i + 1, (String) args[i]);
        }
      }
      return ps.executeUpdate();
    }
  }

  private static Duration left(long micros) {
    return micros <= 0 ? Duration.ZERO : Duration.of(micros, ChronoUnit.MICROS);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}

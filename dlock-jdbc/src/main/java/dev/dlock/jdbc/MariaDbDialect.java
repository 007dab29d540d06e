package dev.dlock.jdbc;

import dev.dlock.spi.Grant;
import dev.dlock.spi.Ticker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * MariaDB and MySQL. Why not INSERT ... ON DUPLICATE KEY UPDATE for the grant: its SET clauses see
 * the columns already assigned to their left (or not, under MariaDB's SIMULTANEOUS_ASSIGNMENT
 * mode), so one grant condition cannot guard owner, token and expiry reliably. The grant is one
 * UPDATE instead, whose WHERE holds the expiry test and whose assignments read no other assigned
 * column; it hands the new token back through LAST_INSERT_ID(expr), which the driver reports as
 * the statement's generated key. Only a name seen for the first time is INSERTed, and of two
 * first INSERTs the primary key lets one win. Renewal sends a chunk of grants as one JSON array
 * joined through JSON_TABLE (each looked up by the primary key), as neither database has array
 * parameters. Neither can notify a client
 * either: waking the next waiter deletes its queue row, which that client's inbox poller notices;
 * on MariaDB the delete returns the row's inbox, whose sleep the releaser then ends (see
 * {@link MariaDbBell}). MySQL has no DELETE ... RETURNING, so its waiters wait for their rounds.
 */
final class MariaDbDialect extends Dialect {
  private static final String MICROS = "TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))";

  private static final String GRANT = """
      UPDATE {table}
      SET token = LAST_INSERT_ID(GREATEST({next}, {micros})), owner = ?,
          expires_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, acquired_at = UTC_TIMESTAMP(6)
      WHERE name = ? AND (owner IS NULL OR expires_at <= UTC_TIMESTAMP(6) OR owner = ?)""";

  private static final String LAST_TOKEN = "SELECT LAST_INSERT_ID()";

  private static final String INSERT = """
      INSERT INTO {table} (name, owner, token, expires_at, acquired_at)
      VALUES (?, ?, LAST_INSERT_ID({micros}), UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND,
              UTC_TIMESTAMP(6))""";

  private static final String HOLDER = """
      SELECT owner, TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at)
      FROM {table} WHERE name = ?""";

  private static final String RENEW = """
      UPDATE {table} AS l
      JOIN JSON_TABLE(?, '$[*]' COLUMNS (
        name VARCHAR(1024) PATH '$.n', owner VARCHAR(255) PATH '$.o', token BIGINT PATH '$.t')) AS g
        ON l.name = g.name AND l.owner = g.owner AND l.token = g.token
      SET l.expires_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
      WHERE l.expires_at > UTC_TIMESTAMP(6)""";

  private static final String RENEWED = """
      SELECT l.name, l.owner, l.token FROM {table} AS l
      JOIN JSON_TABLE(?, '$[*]' COLUMNS (
        name VARCHAR(1024) PATH '$.n', owner VARCHAR(255) PATH '$.o', token BIGINT PATH '$.t')) AS g
        ON l.name = g.name AND l.owner = g.owner AND l.token = g.token
      WHERE l.expires_at > UTC_TIMESTAMP(6)""";

  private static final String INSPECT = """
      SELECT name, owner, token, TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at)
      FROM {table} WHERE name = ? AND owner IS NOT NULL AND expires_at > UTC_TIMESTAMP(6)""";

  private static final String INSPECT_ALL = """
      SELECT name, owner, token, TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at)
      FROM {table} WHERE owner IS NOT NULL AND expires_at > UTC_TIMESTAMP(6)""";

  private static final String RELEASE = """
      UPDATE {table} SET owner = NULL, expires_at = NULL
      WHERE name = ? AND owner = ? AND token = ? AND expires_at > UTC_TIMESTAMP(6)""";

  private static final String ARM = """
      INSERT INTO {table}_waiters (name, owner, inbox, queued_at, seen_at)
      VALUES (?, ?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
      ON DUPLICATE KEY UPDATE seen_at = UTC_TIMESTAMP(6)""";

  private static final String WAKE_NEXT = """
      DELETE FROM {table}_waiters
      WHERE name = ? AND seen_at > UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND AND owner NOT LIKE '%|%'
      ORDER BY queued_at, owner LIMIT 1""";

  private static final String WAKE_NEXT_RETURNING = WAKE_NEXT + " RETURNING name, owner, inbox";

  private static final String HEARTBEAT = """
      UPDATE {table}_waiters SET seen_at = UTC_TIMESTAMP(6) WHERE inbox = ?""";

  private static final String PURGE = """
      DELETE FROM {table}_waiters WHERE seen_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND""";

  private final String grant = sql(GRANT);
  private final String insert = sql(INSERT);
  private final String renew = sql(RENEW);
  private final String renewed = sql(RENEWED);
  private final String wakeNextReturning = sql(WAKE_NEXT_RETURNING);
  private final boolean mysql;

  MariaDbDialect(String table, int timeoutSeconds, boolean mysql) {
    super(table, timeoutSeconds);
    this.mysql = mysql;
    use(sql(HOLDER), sql(INSPECT), sql(INSPECT_ALL), sql(RELEASE), sql(ARM), sql(WAKE_NEXT),
        sql(HEARTBEAT), sql(PURGE));
  }

  @Override
  String schemaResource() {
    return "mariadb.sql";
  }

  /** Byte-for-byte, no padding: MySQL 8 names it utf8mb4_0900_bin, MariaDB utf8mb4_nopad_bin. */
  @Override
  String collation() {
    return mysql ? "utf8mb4_0900_bin" : "utf8mb4_nopad_bin";
  }

  @Override
  String clockMicros() {
    return MICROS;
  }

  @Override
  String timestampType() {
    return "DATETIME";
  }

  @Override
  boolean qualifiesByCatalog() {
    return true;
  }

  @Override
  @Nullable Dequeued wakeNext(Connection c, String name, long liveMicros) throws SQLException {
    return mysql ? super.wakeNext(c, name, liveMicros) : dequeue(c, wakeNextReturning, name, liveMicros);
  }

  @Override
  void ring(Connection c, Dequeued woken) throws SQLException {
    MariaDbBell.ring(c, woken.inbox());
  }

  @Override
  Bell bell(PgListener.Opener opener, Ticker ticker) {
    return mysql ? Bell.NONE : new MariaDbBell(opener, table);
  }

  @Override
  @Nullable Long grant(Connection c, String name, String owner, long leaseMicros) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(grant, Statement.RETURN_GENERATED_KEYS)) {
      ps.setQueryTimeout(timeoutSeconds());
      ps.setString(1, owner);
      ps.setLong(2, leaseMicros);
      ps.setString(3, name);
      ps.setString(4, owner);
      if (ps.executeUpdate() == 1) {
        return newToken(c, ps);
      }
    }
    // Held, or a name never used (or whose row was lost): a first grant creates the row.
    try (PreparedStatement ps = c.prepareStatement(insert, Statement.RETURN_GENERATED_KEYS)) {
      ps.setQueryTimeout(timeoutSeconds());
      ps.setString(1, name);
      ps.setString(2, owner);
      ps.setLong(3, leaseMicros);
      ps.executeUpdate();
      return newToken(c, ps);
    } catch (SQLException e) {
      if (isDuplicateKey(e)) {
        return null;
      }
      throw e;
    }
  }

  /** The token a statement that set LAST_INSERT_ID(token) on one row gave that row. */
  private Long newToken(Connection c, PreparedStatement ps) throws SQLException {
    // The OK packet carries LAST_INSERT_ID(expr) as the generated key: no second round trip.
    try (ResultSet keys = ps.getGeneratedKeys()) {
      if (keys.next()) {
        return keys.getLong(1);
      }
    }
    try (PreparedStatement last = prepare(c, LAST_TOKEN); ResultSet rs = last.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Override
  Set<Grant> renewChunk(Connection c, List<Grant> grants, long leaseMicros) throws SQLException {
    String json = json(grants);
    int updated;
    try (PreparedStatement ps = prepare(c, renew)) {
      ps.setString(1, json);
      ps.setLong(2, leaseMicros);
      updated = ps.executeUpdate();
    }
    if (updated == grants.size()) {
      return new HashSet<>(grants);
    }
    // Some were not extended. Those extended just now are held and unexpired; the others cannot
    // have become so in between, as only this renewal could extend them.
    Set<Grant> extended = new HashSet<>();
    try (PreparedStatement ps = prepare(c, renewed)) {
      ps.setString(1, json);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          extended.add(new Grant(rs.getString(1), rs.getString(2), rs.getLong(3)));
        }
      }
    }
    return extended;
  }

  /** The grants as [{"n":name,"o":owner,"t":token},...], one bind value for JSON_TABLE. */
  static String json(List<Grant> grants) {
    StringBuilder sb = new StringBuilder(grants.size() * 64).append('[');
    for (Grant g : grants) {
      if (sb.length() > 1) {
        sb.append(',');
      }
      sb.append("{\"n\":");
      quote(sb, g.name());
      sb.append(",\"o\":");
      quote(sb, g.owner());
      sb.append(",\"t\":").append(g.token()).append('}');
    }
    return sb.append(']').toString();
  }

  private static void quote(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '"' || ch == '\\') {
        sb.append('\\').append(ch);
      } else if (ch < 0x20) {
        sb.append(String.format("\\u%04x", (int) ch));
      } else {
        sb.append(ch);
      }
    }
    sb.append('"');
  }
}

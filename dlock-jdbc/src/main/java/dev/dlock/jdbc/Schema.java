package dev.dlock.jdbc;

import dev.dlock.LockException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The lock table and its waiter queue: their names, creation and shape. Why a check at start: a
 * table made by hand with a missing column, a wrong type or no primary key on {@code name} would
 * otherwise fail at the first lock with an obscure SQL error, or worse (without the key, two
 * clients could both insert a row for one name), so a wrong table is refused up front, naming the
 * column.
 */
final class Schema {
  /** An unquoted identifier; short enough that "_waiters_inbox" can follow it within 63 chars. */
  private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  static final int MAX_TABLE_LENGTH = 48;
  /** The default table, and the name used in the shipped CREATE statements. */
  static final String DEFAULT_TABLE = "dlock_locks";
  private static final Pattern DEFAULT_TABLE_PREFIX =
      Pattern.compile("(?<![A-Za-z0-9_])" + DEFAULT_TABLE);
  /** A client name (64) + '-' + 8 hex + ':' + a 19-digit sequence: the longest owner dlock makes. */
  static final int MIN_OWNER_LENGTH = 93;
  /** The inbox ids dlock makes: "dlock_" and 24 hex digits. */
  static final int MIN_INBOX_LENGTH = 30;
  /** Used when the name column reports no size (PostgreSQL text); longer keys may not fit an index. */
  static final int MAX_NAME_LENGTH = 1024;
  private static final Set<Integer> STRING_TYPES =
      Set.of(Types.VARCHAR, Types.NVARCHAR, Types.LONGVARCHAR, Types.LONGNVARCHAR);

  private Schema() {}

  /** Returns {@code table} if it is a plain identifier, else an IllegalArgumentException naming it. */
  static String checkTable(String table) {
    if (table == null) {
      throw new NullPointerException("table must not be null");
    }
    if (table.length() > MAX_TABLE_LENGTH || !TABLE.matcher(table).matches()) {
      throw new IllegalArgumentException(String.format("table must be an unquoted identifier of 1 to %d"
          + " letters, digits and '_', not starting with a digit, was '%s'", MAX_TABLE_LENGTH, table));
    }
    return table;
  }

  /** The CREATE statements shipped for the dialect, for the dialect's table. */
  static List<String> createStatements(Dialect d) {
    String resource = d.schemaResource();
    String text;
    try (InputStream in = Schema.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource dev/dlock/jdbc/" + resource);
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    StringBuilder sql = new StringBuilder();
    for (String line : text.split("\n")) {
      if (!line.trim().startsWith("--")) {
        sql.append(line.replace("{collation}", d.collation())).append('\n');
      }
    }
    List<String> statements = new ArrayList<>();
    for (String s : sql.toString().split(";")) {
      if (!s.isBlank()) {
        statements.add(DEFAULT_TABLE_PREFIX.matcher(s.trim()).replaceAll(Matcher.quoteReplacement(d.table)));
      }
    }
    return statements;
  }

  /** What a check of the tables found: the longest lock name they store, the lock table's columns (lower case). */
  record Tables(int maxNameLength, Set<String> lockColumns) {}

  /**
   * Creates the tables if one is absent and {@code create} is set, checks their shape, and returns
   * what it found.
   */
  static Tables prepare(Connection c, Dialect d, boolean create) throws SQLException {
    Map<String, Column> locks = columns(c, d.table);
    Map<String, Column> waiters = columns(c, d.waitersTable());
    Map<String, Column> holders = columns(c, d.holdersTable());
    if (locks == null || waiters == null || holders == null) {
      String missing = locks == null ? d.table : waiters == null ? d.waitersTable() : d.holdersTable();
      if (!create) {
        throw new LockException(String.format("table '%s' does not exist and creating tables is off;"
            + " create the tables with dev/dlock/jdbc/%s:%n%s", missing, d.schemaResource(),
            String.join(";\n", createStatements(d))));
      }
      SQLException failed = null;
      for (String statement : createStatements(d)) {
        try (Statement s = c.createStatement()) {
          s.execute(statement);
        } catch (SQLException e) {
          if (Database.isUnavailable(e)) {
            throw e;
          }
          // Another client may have created it at the same moment; the probe below decides.
          if (failed == null) {
            failed = e;
          } else {
            failed.addSuppressed(e);
          }
        }
      }
      locks = columns(c, d.table);
      waiters = columns(c, d.waitersTable());
      holders = columns(c, d.holdersTable());
      if (locks == null || waiters == null || holders == null) {
        throw new LockException(String.format("table '%s' does not exist and could not be created"
            + " with dev/dlock/jdbc/%s: %s",
            locks == null ? d.table : waiters == null ? d.waitersTable() : d.holdersTable(),
            d.schemaResource(), failed == null ? "no error" : Database.oneLine(failed)), failed);
      }
    }
    Column name = require(d, d.table, locks, "name", Kind.TEXT, 1);
    require(d, d.table, locks, "owner", Kind.TEXT, MIN_OWNER_LENGTH);
    require(d, d.table, locks, "token", Kind.BIGINT, 0);
    require(d, d.table, locks, "expires_at", Kind.TIME, 0);
    require(d, d.table, locks, "acquired_at", Kind.TIME, 0);
    checkKey(c, d, d.table, List.of("name"));
    Column queued = locks.get("queued");
    if (queued != null) {
      require(d, d.table, locks, "queued", Kind.BIGINT, 0);
    }
    int maxName = name.precision > 0 ? Math.min(name.precision, MAX_NAME_LENGTH) : MAX_NAME_LENGTH;

    require(d, d.waitersTable(), waiters, "name", Kind.TEXT, maxName);
    require(d, d.waitersTable(), waiters, "owner", Kind.TEXT, MIN_OWNER_LENGTH);
    require(d, d.waitersTable(), waiters, "inbox", Kind.TEXT, MIN_INBOX_LENGTH);
    require(d, d.waitersTable(), waiters, "queued_at", Kind.TIME, 0);
    require(d, d.waitersTable(), waiters, "seen_at", Kind.TIME, 0);
    checkKey(c, d, d.waitersTable(), List.of("name", "owner"));

    require(d, d.holdersTable(), holders, "name", Kind.TEXT, maxName);
    require(d, d.holdersTable(), holders, "owner", Kind.TEXT, MIN_OWNER_LENGTH);
    require(d, d.holdersTable(), holders, "kind", Kind.TEXT, 2);
    require(d, d.holdersTable(), holders, "token", Kind.BIGINT, 0);
    require(d, d.holdersTable(), holders, "permits", Kind.BIGINT, 0);
    require(d, d.holdersTable(), holders, "expires_at", Kind.TIME, 0);
    checkKey(c, d, d.holdersTable(), List.of("name", "owner"));
    return new Tables(maxName, Set.copyOf(locks.keySet()));
  }

  private record Column(int type, String typeName, int precision, int scale) {}

  private enum Kind { TEXT, BIGINT, TIME }

  /** Column name (lower case) to its metadata, or null if the table cannot be read. */
  private static @Nullable Map<String, Column> columns(Connection c, String table) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
      ResultSetMetaData md = rs.getMetaData();
      Map<String, Column> columns = new HashMap<>();
      for (int i = 1; i <= md.getColumnCount(); i++) {
        columns.put(md.getColumnName(i).toLowerCase(Locale.ROOT), new Column(md.getColumnType(i),
            md.getColumnTypeName(i).toUpperCase(Locale.ROOT), md.getPrecision(i), md.getScale(i)));
      }
      return columns;
    } catch (SQLException e) {
      if (Database.isUnavailable(e)) {
        throw e;
      }
      return null;
    }
  }

  private static Column require(Dialect d, String table, Map<String, Column> columns, String column,
      Kind kind, int minLength) {
    Column col = columns.get(column);
    String expected = switch (kind) {
      case TEXT -> "VARCHAR(" + Math.max(255, minLength) + ")";
      case BIGINT -> "BIGINT";
      case TIME -> d.timestampType();
    };
    if (col == null) {
      throw wrongShape(d, table, column, "is missing (expected " + column + " " + expected + ")");
    }
    boolean fits = switch (kind) {
      case TEXT -> STRING_TYPES.contains(col.type);
      case BIGINT -> col.type == Types.BIGINT || ((col.type == Types.NUMERIC || col.type == Types.DECIMAL)
          && col.scale == 0 && col.precision >= 19);
      case TIME -> col.typeName.equals(d.timestampType());
    };
    if (!fits) {
      throw wrongShape(d, table, column, "has type " + col.typeName + ", expected " + expected);
    }
    if (kind == Kind.TEXT && col.precision > 0 && col.precision < minLength) {
      throw wrongShape(d, table, column, "holds " + col.precision + " chars, at least " + minLength
          + " are needed");
    }
    return col;
  }

  /** The primary key must be exactly {@code key}: it is what makes a grant or a queue place unique. */
  private static void checkKey(Connection c, Dialect d, String table, List<String> key)
      throws SQLException {
    DatabaseMetaData meta = c.getMetaData();
    String folded = fold(meta, table);
    List<String> found = new ArrayList<>();
    try (ResultSet rs = d.qualifiesByCatalog()
        ? meta.getPrimaryKeys(c.getCatalog(), null, folded)
        : meta.getPrimaryKeys(null, c.getSchema(), folded)) {
      Map<Integer, String> bySeq = new HashMap<>();
      while (rs.next()) {
        bySeq.put(rs.getInt("KEY_SEQ"), rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
      }
      for (int i = 1; i <= bySeq.size(); i++) {
        found.add(bySeq.get(i));
      }
    }
    if (!found.equals(key)) {
      throw wrongShape(d, table, key.get(0), String.format("must %s the primary key %s, but the primary"
          + " key is %s", key.size() == 1 ? "be" : "start", "(" + String.join(", ", key) + ")",
          found.isEmpty() ? "missing" : "(" + String.join(", ", found) + ")"));
    }
  }

  private static String fold(DatabaseMetaData meta, String identifier) throws SQLException {
    if (meta.storesUpperCaseIdentifiers()) {
      return identifier.toUpperCase(Locale.ROOT);
    }
    if (meta.storesLowerCaseIdentifiers()) {
      return identifier.toLowerCase(Locale.ROOT);
    }
    return identifier;
  }

  private static LockException wrongShape(Dialect d, String table, String column, String problem) {
    return new LockException(String.format("table '%s' cannot hold dlock locks: column '%s' %s;"
        + " see dev/dlock/jdbc/%s for the expected tables", table, column, problem, d.schemaResource()));
  }
}

package dev.dlock.jdbc;

import static java.util.Objects.requireNonNull;

import dev.dlock.LockException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.function.LongFunction;
import java.util.function.LongUnaryOperator;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Optimistic versioned updates of one numeric column (scheme S2), such as the stock of a flash
 * sale: read (value, version), compute the new value, then
 * {@code UPDATE t SET value = ?, version = version + 1 WHERE key = ? AND version = ?}. No row
 * updated means another writer came first (a conflict): the read is repeated after a random pause
 * that grows with each conflict, up to {@link Builder#maxConflicts} conflicts, after which an
 * {@link OptimisticConflictException} names the key and the count. It suits low contention; under
 * high contention most attempts conflict, and a lock serves better.
 *
 * <pre>{@code
 * OptimisticUpdate stock = OptimisticUpdate.builder().dataSource(ds)
 *     .table("stock").keyColumn("item_id").valueColumn("quantity").versionColumn("version").build();
 * OptimisticUpdate.Result r = stock.update(42L, n -> n > 0 ? OptionalLong.of(n - 1) : OptionalLong.empty());
 * if (!r.applied()) { soldOut(); }
 * }</pre>
 *
 * <p>Thread-safe. Each read and each update is its own auto-committed statement on a connection
 * borrowed from the DataSource; the table is not created or checked.
 */
public final class OptimisticUpdate {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

  /**
   * The outcome of one {@link #update}.
   *
   * @param applied   false if the change refused (returned empty) and nothing was written
   * @param value     the value now stored: the new one, or the one read if refused
   * @param version   the version now stored
   * @param conflicts how many earlier attempts lost the race to another writer
   */
  public record Result(boolean applied, long value, long version, int conflicts) {}

  private final Database db;
  private final String table;
  private final String select;
  private final String update;
  private final int maxConflicts;
  private final Retry retry;

  private OptimisticUpdate(DataSource dataSource, String table, String keyColumn, String valueColumn,
      String versionColumn, Builder b) {
    this.db = new Database(dataSource, "DataSource " + dataSource.getClass().getName(), Duration.ZERO);
    this.table = table;
    this.select = String.format("SELECT %s, %s FROM %s WHERE %s = ?", valueColumn, versionColumn,
        table, keyColumn);
    this.update = String.format("UPDATE %1$s SET %2$s = ?, %3$s = %3$s + 1 WHERE %4$s = ? AND %3$s = ?",
        table, valueColumn, versionColumn, keyColumn);
    this.maxConflicts = b.maxConflicts;
    this.retry = new Retry(b.firstPause, b.maxPause);
  }

  /** A builder; table, key, value and version columns and a DataSource are required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Sets the value of {@code key} to {@code change(value)}, which never refuses; otherwise as
   * {@link #update(Object, LongFunction)}.
   */
  public Result apply(Object key, LongUnaryOperator change) throws InterruptedException {
    requireNonNull(change, "change");
    LongFunction<OptionalLong> always = v -> OptionalLong.of(change.applyAsLong(v));
    return update(key, always);
  }

  /**
   * Sets the value of {@code key} to what {@code change} makes of the current value, retrying on
   * conflicts. {@code change} may run several times, once per attempt, and must have no other
   * effect; it refuses by returning empty (stock would go negative), and then nothing is written.
   *
   * @throws OptimisticConflictException after {@link Builder#maxConflicts} conflicts
   * @throws InterruptedException if interrupted while pausing between attempts
   * @throws LockException if no row has the key, or the database fails
   *     ({@link dev.dlock.BackendUnavailableException} when it cannot be reached)
   */
  public Result update(Object key, LongFunction<OptionalLong> change) throws InterruptedException {
    requireNonNull(key, "key");
    requireNonNull(change, "change");
    return retry.run(attempt -> {
      int conflicts = attempt - 1;
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted updating key '" + key + "' in table '" + table + "'");
      }
      long[] row = read(key);
      OptionalLong next = requireNonNull(change.apply(row[0]), "change returned null");
      if (next.isEmpty()) {
        return Retry.done(new Result(false, row[0], row[1], conflicts));
      }
      if (write(key, next.getAsLong(), row[1])) {
        return Retry.done(new Result(true, next.getAsLong(), row[1] + 1, conflicts));
      }
      if (attempt >= maxConflicts) {
        throw new OptimisticConflictException(String.format("gave up updating key '%s' in table '%s'"
            + " after %d conflicts: another writer changed the row each time", key, table, attempt),
            key, attempt);
      }
      return Retry.again();
    });
  }

  /** (value, version) of the row, or a LockException naming the key. */
  private long[] read(Object key) {
    return db.run("read key '" + key + "' of table '" + table + "'", c -> {
      try (PreparedStatement ps = c.prepareStatement(select)) {
        ps.setObject(1, key);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            throw new LockException(String.format("table '%s' has no row with key '%s'", table, key));
          }
          return new long[] {rs.getLong(1), rs.getLong(2)};
        }
      }
    });
  }

  private boolean write(Object key, long value, long version) {
    return db.run("update key '" + key + "' of table '" + table + "'", c -> {
      try (PreparedStatement ps = c.prepareStatement(update)) {
        ps.setLong(1, value);
        ps.setObject(2, key);
        ps.setLong(3, version);
        return ps.executeUpdate() == 1;
      }
    });
  }

  /** Configures an {@link OptimisticUpdate}. Not thread-safe. */
  public static final class Builder {
    private @Nullable DataSource dataSource;
    private @Nullable String table;
    private @Nullable String keyColumn;
    private @Nullable String valueColumn;
    private @Nullable String versionColumn;
    private int maxConflicts = 10;
    private Duration firstPause = Duration.ofMillis(5);
    private Duration maxPause = Duration.ofMillis(200);

    private Builder() {}

    /** Where the table lives; connections are borrowed per statement. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = requireNonNull(dataSource, "dataSource");
      return this;
    }

    /** The table: an unquoted identifier of up to 63 letters, digits and '_'. */
    public Builder table(String table) {
      this.table = identifier("table", table);
      return this;
    }

    /** The column that identifies the row, usually its primary key; an unquoted identifier. */
    public Builder keyColumn(String column) {
      this.keyColumn = identifier("keyColumn", column);
      return this;
    }

    /** The numeric column the change applies to; an unquoted identifier. */
    public Builder valueColumn(String column) {
      this.valueColumn = identifier("valueColumn", column);
      return this;
    }

    /** The integer version column, incremented by every update; an unquoted identifier. */
    public Builder versionColumn(String column) {
      this.versionColumn = identifier("versionColumn", column);
      return this;
    }

    /** After how many conflicts {@code update} gives up: 1 to 10000; default 10. */
    public Builder maxConflicts(int maxConflicts) {
      if (maxConflicts < 1 || maxConflicts > 10_000) {
        throw new IllegalArgumentException("maxConflicts must be 1 to 10000, was " + maxConflicts);
      }
      this.maxConflicts = maxConflicts;
      return this;
    }

    /**
     * The pause after a conflict is random, up to {@code first} doubled for each further conflict
     * and capped at {@code max}; defaults 5 ms and 200 ms. Zero {@code first} retries at once.
     */
    public Builder backoff(Duration first, Duration max) {
      requireNonNull(first, "first");
      requireNonNull(max, "max");
      if (first.isNegative() || first.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new IllegalArgumentException("backoff first pause must be 0 to 1 min, was " + first);
      }
      if (max.compareTo(first) < 0 || max.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new IllegalArgumentException("backoff max pause must be " + first + " to 1 min, was " + max);
      }
      this.firstPause = first;
      this.maxPause = max;
      return this;
    }

    /** The helper; throws IllegalStateException naming the first missing setting. */
    public OptimisticUpdate build() {
      return new OptimisticUpdate(required(dataSource, "dataSource"), required(table, "table"),
          required(keyColumn, "keyColumn"), required(valueColumn, "valueColumn"),
          required(versionColumn, "versionColumn"), this);
    }

    private static <T> T required(@Nullable T setting, String name) {
      if (setting == null) {
        throw new IllegalStateException("an OptimisticUpdate needs " + name + "(...)");
      }
      return setting;
    }

    private static String identifier(String what, String value) {
      requireNonNull(value, what);
      if (!IDENTIFIER.matcher(value).matches()) {
        throw new IllegalArgumentException(String.format("%s must be an unquoted identifier of 1 to 63"
            + " letters, digits and '_', not starting with a digit, was '%s'", what, value));
      }
      return value;
    }
  }
}

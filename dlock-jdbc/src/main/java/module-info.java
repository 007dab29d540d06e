/**
 * dlock's JDBC backends, {@code jdbc:} URLs and {@link dev.dlock.jdbc.JdbcLockBackend} over an
 * application's {@code DataSource}. The PostgreSQL driver is optional, as every driver is; it loads
 * the socket factory in {@code dev.dlock.jdbc.internal} by name.
 */
// The PostgreSQL driver is an automatic module; its jar names itself org.postgresql.jdbc.
@SuppressWarnings("requires-automatic")
module dev.dlock.jdbc {
  requires transitive dev.dlock.core;
  requires transitive java.sql;
  requires com.zaxxer.hikari;
  requires static org.postgresql.jdbc;
  requires org.slf4j;

  exports dev.dlock.jdbc;
  exports dev.dlock.jdbc.internal to org.postgresql.jdbc;

  provides dev.dlock.spi.LockBackendProvider with dev.dlock.jdbc.JdbcBackendProvider;
}

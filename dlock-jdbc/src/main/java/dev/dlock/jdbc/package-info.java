/**
 * The JDBC backend: lease locks (scheme S1) in one table, or session locks (S3) held by pinned
 * connections, on PostgreSQL, MariaDB/MySQL and H2; and {@link dev.dlock.jdbc.OptimisticUpdate},
 * the versioned update of scheme S2.
 * Open it with {@code LockClient.connect("jdbc:...")} ({@link dev.dlock.jdbc.JdbcBackendProvider})
 * or build it on a DataSource with {@link dev.dlock.jdbc.JdbcLockBackend#builder()}.
 */
@NullMarked
package dev.dlock.jdbc;

import org.jspecify.annotations.NullMarked;

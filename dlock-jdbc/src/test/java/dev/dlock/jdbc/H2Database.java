package dev.dlock.jdbc;

import java.util.concurrent.atomic.AtomicInteger;
import org.h2.jdbcx.JdbcDataSource;

/** A named in-memory H2 database, kept while the JVM lives, shared by every client that opens it. */
final class H2Database implements TestDatabase {
  private static final AtomicInteger SEQ = new AtomicInteger();
  private final String url;

  H2Database() {
    this.url = "jdbc:h2:mem:dlock" + SEQ.incrementAndGet() + ";DB_CLOSE_DELAY=-1";
    try {
      execute("CREATE USER IF NOT EXISTS app PASSWORD '" + SECRET + "' ADMIN");
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String passwordUrl() {
    return url + ";USER=app;PASSWORD=" + SECRET;
  }

  @Override
  public String url() {
    return url;
  }

  @Override
  public JdbcDataSource dataSource() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL(url);
    return ds;
  }

  @Override
  public String badTimestampType() {
    return "TIMESTAMP";
  }

  @Override
  public void open() {
    // Made in the constructor, so a test may also hold one in a plain field.
  }

  @Override
  public void close() {
    // The JVM's exit drops it.
  }
}

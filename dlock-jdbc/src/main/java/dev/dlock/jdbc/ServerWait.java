package dev.dlock.jdbc;

import java.sql.SQLException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a statement that blocks at the server on a helper thread, so the caller can be interrupted.
 * Why: JDBC drivers ignore thread interrupts while a statement waits (and embedded H2 may close its
 * files when interrupted), so the caller waits on the helper's future instead; on an interrupt it
 * cancels the statement through {@link SessionDialect.Cancel}, again every 50 ms in case the cancel
 * came before the statement reached the server, until the helper has finished, and only then
 * throws, so the caller can undo what the helper did. The wait for the helper needs no bound of
 * its own: the server ends its wait before the caller's deadline, and the connection's network
 * timeout ends a read from a server that stopped answering.
 */
final class ServerWait implements AutoCloseable {
  /** Blocking JDBC work. */
  interface Work<T> {
    T run() throws SQLException;
  }

  private static final AtomicInteger THREADS = new AtomicInteger();

  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "dlock-jdbc-session-wait-" + THREADS.incrementAndGet());
    t.setDaemon(true);
    return t;
  });

  /** The work's result; its SQLException or RuntimeException as thrown. */
  <T> T run(Work<T> work, SessionDialect.Cancel cancel) throws SQLException, InterruptedException {
    Future<T> done = threads.submit(work::run);
    try {
      return done.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof SQLException s) {
        throw s;
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(cause);
    } catch (InterruptedException e) {
      while (true) {
        cancel.cancel();
        try {
          done.get(50, TimeUnit.MILLISECONDS);
          break;
        } catch (TimeoutException | InterruptedException again) {
          // Not finished yet: cancel again. The caller's interrupt is reported once, below.
        } catch (ExecutionException failed) {
          break; // the work cleaned up after itself
        }
      }
      throw e;
    }
  }

  /** Lets running waits finish (each within its server-side bound); interrupts nothing. */
  @Override
  public void close() {
    threads.shutdown();
  }
}

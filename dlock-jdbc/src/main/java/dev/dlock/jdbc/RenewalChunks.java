package dev.dlock.jdbc;

import dev.dlock.internal.CallTimeout;
import dev.dlock.spi.Grant;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One renewal round of exclusive grants, in chunks of {@link Dialect#RENEW_CHUNK}: on the caller's
 * connection and, when the round has more than one chunk and the pool gives them, on up to
 * {@link #MAX_HELPERS} more connections from helper threads. Why more than one: a chunk is one
 * statement whose time is the server's, and each connection has its own server process, so each
 * connection added shortens a round of 100,000 leases while the server has cores to spare; why a
 * bound: the pool is the application's (the caller says how many helpers its pool can spare).
 * Each worker borrows its connection first and only then takes chunks, one at a time, so a helper
 * that gets no connection (a pool of one, or a busy one) takes none and the round runs as it would
 * without it. A chunk's result is the positions of the grants it extended, kept by the chunk's
 * index, so each grant's outcome is its own and no set of 100,000 grants is built to match them. A
 * chunk whose worker fails goes back to the list for the other workers, and the round fails only
 * if the caller's own worker fails (the engine then keeps each lease to its deadline, as after any
 * failed renewal, and no chunk's grants are reported lost or extended).
 */
final class RenewalChunks {
  private static final Logger log = LoggerFactory.getLogger(RenewalChunks.class);
  /** The most helper connections a round uses beside the caller's: four connections in all. */
  static final int MAX_HELPERS = 3;

  /** Renews one chunk on {@code c}; returns the positions in it of the grants it extended. */
  interface Chunk {
    BitSet renew(Connection c, List<Grant> chunk) throws SQLException;
  }

  private final List<List<Grant>> chunks = new ArrayList<>();
  private final int size;
  private final List<@Nullable BitSet> results = new ArrayList<>();
  private final ArrayDeque<Integer> todo = new ArrayDeque<>();
  private int inFlight;
  private int finished;
  private boolean stopped;
  private @Nullable RuntimeException helperFailure;

  private RenewalChunks(List<Grant> grants, int size) {
    this.size = size;
    for (int from = 0; from < grants.size(); from += size) {
      todo.add(chunks.size());
      chunks.add(grants.subList(from, Math.min(grants.size(), from + size)));
      results.add(null);
    }
  }

  /**
   * Renews {@code grants} in chunks of {@code size}, each by {@code chunk}; returns the positions
   * in {@code grants} of those extended. {@code helper} runs the workers of up to {@code helpers}
   * more connections (at most {@link #MAX_HELPERS}, and one fewer than the chunks); none when it is
   * null or busy.
   *
   * @param what the operation, for the messages of {@link Database#run}
   */
  static BitSet renew(Database db, String what, List<Grant> grants, int size, Chunk chunk,
      @Nullable Executor helper, int helpers) {
    RenewalChunks round = new RenewalChunks(grants, size);
    int wanted = helper == null ? 0 : Math.min(Math.min(helpers, MAX_HELPERS), round.chunks.size() - 1);
    long bound = wanted > 0 ? CallTimeout.boundNanos(Long.MAX_VALUE) : Long.MAX_VALUE;
    for (int i = 0; i < wanted && helper != null; i++) {
      try {
        helper.execute(() -> round.help(db, what, chunk, bound));
      } catch (RejectedExecutionException e) {
        // The helpers still wait for connections for an earlier round (or the backend closed).
        break;
      }
    }
    return round.run(db, what, chunk);
  }

  /** The helper's worker, within the caller's deadline; a failure leaves its chunk to the caller. */
  private void help(Database db, String what, Chunk chunk, long bound) {
    try {
      CallTimeout.within(bound == Long.MAX_VALUE ? -1 : bound, () -> db.run(what, c -> work(c, chunk)));
    } catch (RuntimeException e) {
      log.debug("dlock: a helper connection of a renewal failed; another worker renews its chunk", e);
      synchronized (this) {
        if (helperFailure == null) {
          helperFailure = e;
        } else {
          helperFailure.addSuppressed(e);
        }
      }
    }
  }

  private BitSet run(Database db, String what, Chunk chunk) {
    while (true) {
      try {
        db.run(what, c -> work(c, chunk));
      } catch (RuntimeException e) {
        synchronized (this) {
          stopped = true;
          if (helperFailure != null) {
            e.addSuppressed(helperFailure);
          }
        }
        throw e;
      }
      synchronized (this) {
        awaitHelper();
        if (finished == chunks.size()) {
          BitSet renewed = new BitSet();
          for (int i = 0; i < results.size(); i++) {
            BitSet r = Objects.requireNonNull(results.get(i));
            for (int at = r.nextSetBit(0); at >= 0; at = r.nextSetBit(at + 1)) {
              renewed.set(i * size + at);
            }
          }
          return renewed;
        }
        if (todo.isEmpty()) { // every chunk is either done, in flight or to do
          throw new IllegalStateException(
              what + ": " + (chunks.size() - finished) + " chunk(s) neither done nor left to do");
        }
      }
      // A helper failed and gave its chunk back: renew it here, on a connection borrowed anew.
    }
  }

  /**
   * Waits while the helpers' chunks are in flight. Not interruptibly: each chunk's statement is
   * bounded by the round's deadline, and an interrupt the caller's thread carries (the engine's
   * renewal thread may) would otherwise fail a round the server is completing; the flag is kept.
   */
  private synchronized void awaitHelper() {
    boolean interrupted = false;
    while (finished < chunks.size() && todo.isEmpty() && inFlight > 0) {
      try {
        wait();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private Boolean work(Connection c, Chunk chunk) throws SQLException {
    for (int i = claim(); i >= 0; i = claim()) {
      BitSet extended;
      try {
        extended = chunk.renew(c, chunks.get(i));
      } catch (SQLException | RuntimeException e) {
        giveBack(i);
        throw e;
      }
      finish(i, extended);
    }
    return Boolean.TRUE;
  }

  /** The index of a chunk to renew next, or -1 when none is left or the round has failed. */
  private synchronized int claim() {
    Integer i = stopped ? null : todo.poll();
    if (i == null) {
      return -1;
    }
    inFlight++;
    return i;
  }

  private synchronized void finish(int i, BitSet extended) {
    results.set(i, extended);
    inFlight--;
    finished++;
    notifyAll();
  }

  private synchronized void giveBack(int i) {
    todo.push(i);
    inFlight--;
    notifyAll();
  }
}

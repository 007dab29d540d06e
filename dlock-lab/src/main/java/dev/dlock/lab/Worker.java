package dev.dlock.lab;

import com.zaxxer.hikari.HikariDataSource;
import dev.dlock.jdbc.OptimisticUpdate;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One worker JVM of a lab run: it opens one scheme, runs one workload against the shared
 * {@link Resource} and records every step in its history. On stdout, one line each, flushed:
 * {@code READY} once connected; then, after {@code GO} on stdin and until {@code END} on stdin or
 * {@code --duration-ms}, {@code ENTER <token>} and {@code EXIT} around every hold, {@code RELEASED}
 * after its release, {@code HELD} when {@code HOLD} on stdin keeps it in a hold, {@code GAP} when
 * {@code --gap} stops it where its fault must land (see {@link #gap}), and {@code DONE} at the end
 * (exit status 0). An error is one line on stderr and status 1; stdin closing early ends the
 * worker at once (status 0).
 * Why a process per worker: the faults (kill -9, SIGSTOP) act on whole processes.
 */
public final class Worker {
  private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  private static final long GAP_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(300);

  private final WorkerOptions opts;
  private final History history;
  private final Duration lease;
  private final Duration wait;
  private Scheme scheme;
  private Connection resource;
  private boolean gapped;
  private volatile long goNanos;
  private volatile boolean ending;
  // HOLD and FREE on stdin (see stayHeld); the main thread is unparked at FREE.
  private volatile boolean holdBack;
  private volatile Thread main;

  private Worker(WorkerOptions opts) {
    this.opts = opts;
    this.history = History.append(opts.history(), opts.process());
    this.lease = Duration.ofMillis(opts.leaseMs());
    this.wait = Duration.ofMillis(opts.waitMs());
  }

  /** See the class comment for the options and the protocol. */
  public static void main(String[] args) {
    int status = 0;
    try {
      new Worker(WorkerOptions.parse(args)).run();
    } catch (Exception e) {
      System.err.println("dlock-lab worker: " + describe(e));
      status = 1;
    }
    System.exit(status);
  }

  /**
   * The {@code --gap}, armed {@code --gap-after-ms} after GO: where the injector's fault must land.
   * S4 parks for good between SETNX and EXPIRE, to be killed there. S8-wrong, between its GET and
   * its DEL, and every other scheme right before its write (the moment of the articles' GC pause),
   * wait once for the injector's SIGSTOP. With {@code --gap-before-write}, S4 and S8-wrong too wait
   * right before the write: S4's pause (F2) must land inside its hold, which a holder caught by its
   * state alone may already have left by the time the signal arrives. With {@code --gap-ms} the
   * holder instead stays that long in its hold while the injector cuts its network, and leaves as
   * soon as its scheme says the lock is lost (logged as {@code lost}). With {@code --gap-blind} as well it stays all that time
   * whatever it is told, as a client that believes its lease (F7): a loss it is told of is logged
   * when it comes ({@code lost}, info {@code ignored}), and the hold goes on to its write.
   *
   * @return whether the scheme said the lock was lost during the gap and the holder heeds it
   */
  private boolean gap(Scheme.Held held) {
    if (!opts.gap() || gapped || System.nanoTime() - goNanos < TimeUnit.MILLISECONDS.toNanos(opts.gapAfterMs())) {
      return false;
    }
    gapped = true;
    say("GAP");
    if (opts.scheme().equals("S4") && !opts.gapBeforeWrite()) {
      while (true) {
        LockSupport.park();
      }
    }
    if (opts.gapMs() == 0 || held == null) {
      LockSupport.parkNanos(GAP_WAIT_NANOS);
      return false;
    }
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(opts.gapMs());
    if (!work(held, end - System.nanoTime())) {
      return false;
    }
    history.log("lost", "info", opts.lock(), held.token(), opts.gapBlind() ? "ignored" : "");
    if (opts.gapBlind()) {
      work(null, end - System.nanoTime());
    }
    return !opts.gapBlind();
  }

  /**
   * The gap right before the write: of the schemes whose own flaw does not lie elsewhere, and of
   * every scheme with {@code --gap-before-write}.
   */
  private boolean beforeWrite(Scheme.Held held) {
    return !hasOwnGap() && gap(held);
  }

  /** Whether the gap lies inside the scheme (S4, S8-wrong), where it calls the worker back. */
  private boolean hasOwnGap() {
    return !opts.gapBeforeWrite() && (opts.scheme().equals("S4") || opts.scheme().equals("S8-wrong"));
  }

  private void run() throws Exception {
    resource = DriverManager.getConnection(opts.resource());
    if (!Schemes.optimistic(opts.scheme())) {
      scheme = Schemes.open(opts.scheme(), opts.url(), opts.process(), lease,
          Duration.ofMillis(opts.clockOffsetMs()), () -> history.log("wake", "info", opts.lock(), -1, ""),
          () -> {
            if (hasOwnGap()) {
              gap(null);
            }
          });
    }
    say("READY");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String go = in.readLine();
    if (go == null) {
      System.exit(0);
    }
    if (!go.equals("GO")) {
      throw new IllegalStateException("expected GO on stdin, got '" + go + "'");
    }
    main = Thread.currentThread();
    watchStdin(in);
    goNanos = System.nanoTime();
    long end = goNanos + TimeUnit.MILLISECONDS.toNanos(opts.durationMs());
    switch (opts.workload()) {
      case "critical" -> {
        while (running(end)) {
          hold(false);
        }
      }
      case "readwrite" -> {
        if (!(scheme instanceof ReadWriteScheme)) {
          throw new IllegalArgumentException("scheme " + opts.scheme() + " has no read-write lock");
        }
        while (running(end)) {
          hold(opts.role().equals("reader"));
        }
      }
      default -> flash(end);
    }
    if (scheme != null) {
      scheme.close();
    }
    resource.close();
    say("DONE");
    history.close();
  }

  /** One critical-section hold: a shared one reads only; an exclusive one writes with its token. */
  private void hold(boolean shared) throws Exception {
    Scheme.Held held = acquire(shared);
    if (held == null) {
      return;
    }
    enter(held, shared ? "shared" : "");
    long half = TimeUnit.MILLISECONDS.toNanos(opts.workMs()) / 2;
    boolean lost = work(held, half);
    if (!lost && !shared) {
      lost = beforeWrite(held);
      if (!lost) {
        write(held.token());
      }
    }
    if (!lost) {
      lost = work(held, TimeUnit.MILLISECONDS.toNanos(opts.workMs()) - half);
    }
    if (!lost) {
      lost = stayHeld(held);
    }
    exit(held, lost);
    release(held);
  }

  /** The flash sale: buy one item at a time until the stock reads 0 or the time is up. */
  private void flash(long end) throws Exception {
    if (scheme == null) {
      optimisticFlash(end);
      return;
    }
    while (running(end)) {
      Scheme.Held held = acquire(false);
      if (held == null) {
        continue;
      }
      enter(held, "");
      int seen = Resource.stock(resource);
      boolean lost = seen > 0 && work(held, TimeUnit.MILLISECONDS.toNanos(opts.workMs()));
      if (seen > 0 && !lost) {
        lost = beforeWrite(held);
      }
      if (seen > 0 && !lost) {
        if (stockWrite(seen - 1, held.token())) {
          history.log("buy", "ok", opts.lock(), held.token(), Integer.toString(seen));
        }
      }
      if (!lost) {
        lost = stayHeld(held);
      }
      exit(held, lost);
      release(held);
      if (seen <= 0) {
        return;
      }
    }
  }

  /** Writes the stock with the hold's token; logs and returns whether the row took it. */
  private boolean stockWrite(int quantity, long token) {
    try {
      boolean accepted = Resource.setStock(resource, quantity, token);
      history.log("write", accepted ? "ok" : "fail", opts.lock(), token, accepted ? "" : "stale");
      return accepted;
    } catch (SQLException e) {
      history.log("write", "fail", opts.lock(), token, describe(e));
      return false;
    }
  }

  /** S2: no lock; a versioned update that retries on conflict, as dlock-cli's demo buyers do. */
  private void optimisticFlash(long end) throws Exception {
    try (HikariDataSource pool = new HikariDataSource()) {
      pool.setJdbcUrl(opts.resource());
      pool.setMaximumPoolSize(2);
      OptimisticUpdate stock = OptimisticUpdate.builder().dataSource(pool).table("lab_stock").keyColumn("id")
          .valueColumn("quantity").versionColumn("version").maxConflicts(10_000)
          .backoff(Duration.ofMillis(1), Duration.ofMillis(20)).build();
      while (running(end)) {
        OptimisticUpdate.Result r = stock.update(1, left -> {
          if (left <= 0) {
            return OptionalLong.empty();
          }
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(opts.workMs()));
          return OptionalLong.of(left - 1);
        });
        if (!r.applied()) {
          return;
        }
        history.log("buy", "ok", opts.lock(), -1, Long.toString(r.value() + 1));
      }
    }
  }

  private Scheme.Held acquire(boolean shared) throws InterruptedException {
    history.log("acquire", "invoke", opts.lock(), -1, "");
    try {
      Scheme.Held held = shared ? ((ReadWriteScheme) scheme).acquire(opts.lock(), true, lease, wait)
          : scheme.acquire(opts.lock(), lease, wait);
      if (held == null) {
        history.log("acquire", "fail", opts.lock(), -1, "timeout");
      } else {
        history.log("acquire", "ok", opts.lock(), held.token(), "");
      }
      return held;
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      history.log("acquire", "fail", opts.lock(), -1, describe(e));
      TimeUnit.MILLISECONDS.sleep(10);
      return null;
    }
  }

  private void enter(Scheme.Held held, String info) {
    say("ENTER " + held.token());
    history.log("enter", "ok", opts.lock(), held.token(), info);
  }

  private void exit(Scheme.Held held, boolean lost) {
    history.log("exit", "ok", opts.lock(), held.token(), lost ? "lost" : "");
    say("EXIT");
  }

  /**
   * Works {@code nanos} in slices; true as soon as the scheme says the lock was lost. A {@code null}
   * hold is not asked: the work takes all its time.
   */
  private static boolean work(Scheme.Held held, long nanos) {
    long end = System.nanoTime() + nanos;
    for (long left = nanos; left > 0; left = end - System.nanoTime()) {
      if (held != null && held.lost()) {
        return true;
      }
      LockSupport.parkNanos(Math.min(left, SLICE_NANOS));
    }
    return held != null && held.lost();
  }

  /**
   * After {@code HOLD} on stdin, stays in this hold (says {@code HELD}) until {@code FREE}, so the
   * coordinator can wake a paused worker inside it (F2); true if the lock was lost meanwhile.
   */
  private boolean stayHeld(Scheme.Held held) {
    if (!holdBack) {
      return false;
    }
    say("HELD");
    while (holdBack) {
      if (held.lost()) {
        holdBack = false;
        return true;
      }
      LockSupport.parkNanos(SLICE_NANOS);
    }
    return false;
  }

  private void write(long token) {
    try {
      boolean accepted = Resource.fencedWrite(resource, token);
      history.log("write", accepted ? "ok" : "fail", opts.lock(), token, accepted ? "" : "stale");
    } catch (SQLException e) {
      history.log("write", "fail", opts.lock(), token, describe(e));
    }
  }

  private void release(Scheme.Held held) {
    try {
      history.log("release", "ok", opts.lock(), held.token(), "freed=" + held.release());
    } catch (Exception e) {
      history.log("release", "fail", opts.lock(), held.token(), describe(e));
    }
    say("RELEASED");
  }

  /** Whether to start another hold: neither {@code END} came nor the time ran out. */
  private boolean running(long end) {
    return !ending && System.nanoTime() - end < 0;
  }

  /**
   * Follows stdin after GO: {@code HOLD} and {@code FREE} (see {@link #stayHeld}); {@code END} ends
   * the run after the current hold (the coordinator ends a run once the fault's aftermath has been
   * seen); a closed stdin, its coordinator gone, ends the worker at once.
   */
  private void watchStdin(BufferedReader in) {
    Thread t = new Thread(() -> {
      try {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          if (line.equals("END")) {
            ending = true;
          } else if (line.equals("HOLD")) {
            holdBack = true;
          } else if (line.equals("FREE")) {
            holdBack = false;
            LockSupport.unpark(main);
          }
        }
      } catch (IOException e) {
        // A broken stdin is a closed one.
      }
      System.exit(0);
    }, "stdin-watch");
    t.setDaemon(true);
    t.start();
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  private static String describe(Exception e) {
    return e.getMessage() == null ? e.toString() : e.getClass().getSimpleName() + ": " + e.getMessage();
  }
}

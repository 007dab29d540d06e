package dev.dlock.jdbc;

import dev.dlock.testkit.Signals;
import java.util.ArrayList;
import java.util.List;

/**
 * A server process and its children stopped with SIGSTOP, as a long GC pause or a frozen VM would
 * stop them: sockets stay open and connects are queued by the kernel, but nothing answers.
 * {@link #close()} sends SIGCONT; use it in try-with-resources so the server always resumes.
 */
final class Paused implements AutoCloseable {
  private final List<Long> pids;

  private Paused(List<Long> pids) {
    this.pids = pids;
  }

  /** Stops {@code pid} first, so it cannot start new children, then every child it has. */
  static Paused pause(long pid) {
    List<Long> pids = new ArrayList<>();
    pids.add(pid);
    signal("STOP", pids);
    List<Long> children = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no process " + pid))
        .children().map(ProcessHandle::pid).toList();
    Paused paused = new Paused(new ArrayList<>(pids));
    paused.pids.addAll(children);
    try {
      signal("STOP", children);
    } catch (RuntimeException e) {
      paused.close();
      throw e;
    }
    return paused;
  }

  /**
   * Resumes the children first, then the server. Why in that order, and why a child that is gone is
   * skipped: a child that was already exiting when paused (a backend whose client had just closed)
   * stays a zombie until its parent reaps it, so resumed first, the parent would reap it and a
   * later SIGCONT find no process (it failed a CI run so). Every process is resumed even if one
   * signal fails; the first failure is thrown after.
   */
  @Override
  public void close() {
    RuntimeException failed = null;
    for (int i = pids.size() - 1; i >= 0; i--) {
      long pid = pids.get(i);
      if (i > 0 && !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
        continue;
      }
      try {
        Signals.send("CONT", pid);
      } catch (RuntimeException e) {
        if (failed == null) {
          failed = e;
        } else {
          failed.addSuppressed(e);
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  private static void signal(String signal, List<Long> pids) {
    for (long pid : pids) {
      Signals.send(signal, pid);
    }
  }
}

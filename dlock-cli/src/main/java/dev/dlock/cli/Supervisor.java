package dev.dlock.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Stops the command's process group when asked, from whichever thread asks (a signal handler, the
 * client's loss callback), the way timeout(1) does: the signal now, SIGKILL to whatever of the
 * group is left once the grace period has passed. Once a stop was asked, waiting for the command
 * also waits for the rest of its group, so that nothing started under the lock still runs after
 * dlock releases it. Without a stop, processes the command leaves behind are not waited for, as a
 * shell does not wait for them either.
 */
final class Supervisor {
  /** After SIGKILL, how many group checks before giving up on a process that does not die (stuck in the kernel). */
  private static final int CHECKS_AFTER_KILL = 250;
  private static final long CHECK_EVERY_MS = 20;

  private final ProcessGroup group;
  private final Duration killAfter;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private volatile String firstSignal;
  private final CompletableFuture<Boolean> killed = new CompletableFuture<>();

  Supervisor(ProcessGroup group, Duration killAfter) {
    this.group = group;
    this.killAfter = killAfter;
  }

  /** Sends {@code signal} to the group; the first stop also sets the SIGKILL deadline. */
  void stop(String signal) {
    try {
      if (!group.anyAlive()) {
        return;
      }
      group.signal(signal);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot send SIG" + signal + " to process group " + group.pid(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (stopping.compareAndSet(false, true)) {
      firstSignal = signal;
      CompletableFuture.delayedExecutor(killAfter.toNanos(), TimeUnit.NANOSECONDS).execute(this::killLeftovers);
    }
  }

  private void killLeftovers() {
    try {
      boolean left = group.anyAlive();
      if (left) {
        group.signal("KILL");
      }
      killed.complete(left);
    } catch (IOException | RuntimeException e) {
      killed.completeExceptionally(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      killed.completeExceptionally(e);
    }
  }

  /**
   * Once SIGKILL was sent because the group outlived the grace period, a note that says so, such
   * as "it was still running 1000 ms after SIGTERM, so its group got SIGKILL"; else empty.
   */
  Optional<String> killNote() {
    return killed.getNow(false)
        ? Optional.of("it was still running " + killAfter.toMillis() + " ms after SIG" + firstSignal
            + ", so its group got SIGKILL")
        : Optional.empty();
  }

  /**
   * Waits for the command and returns its exit status, 128+N if a signal N ended it; once a stop
   * was asked, waits for the rest of its group too.
   *
   * @throws IOException if the group's processes cannot be read, or SIGKILL could not be sent
   */
  int await() throws InterruptedException, IOException {
    int status = group.process().waitFor();
    if (stopping.get()) {
      awaitGroup();
    }
    return status;
  }

  /**
   * No event says that the last process of a group has ended, and the processes are not dlock's
   * children, so /proc is read every few milliseconds until none is left.
   */
  private void awaitGroup() throws InterruptedException, IOException {
    int checksAfterKill = 0;
    while (group.anyAlive()) {
      if (killed.isCompletedExceptionally()) {
        try {
          killed.join();
        } catch (CompletionException e) {
          throw new IOException("cannot send SIGKILL to process group " + group.pid(), e.getCause());
        }
      }
      if (killed.isDone() && ++checksAfterKill > CHECKS_AFTER_KILL) {
        throw new IOException("process group " + group.pid() + " still has processes "
            + CHECKS_AFTER_KILL * CHECK_EVERY_MS + " ms after SIGKILL");
      }
      Thread.sleep(CHECK_EVERY_MS);
    }
  }
}

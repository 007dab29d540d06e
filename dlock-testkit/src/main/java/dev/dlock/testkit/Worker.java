package dev.dlock.testkit;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A platform thread running one blocking step of a test, with its outcome. Tests need the thread
 * itself (to interrupt it, or because the Lock view is owned by the thread), which an executor's
 * future would hide.
 */
final class Worker<T> {
  private final String what;
  private final Thread thread;
  private final CompletableFuture<T> outcome = new CompletableFuture<>();

  Worker(String what, Callable<T> body) {
    this.what = what;
    this.thread = new Thread(() -> {
      try {
        outcome.complete(body.call());
      } catch (Throwable t) {
        outcome.completeExceptionally(t);
      }
    }, "dlock-conformance-" + what);
    thread.setDaemon(true);
  }

  Worker<T> start() {
    thread.start();
    return this;
  }

  Thread thread() {
    return thread;
  }

  boolean isDone() {
    return outcome.isDone();
  }

  /** The result; fails the test if the body threw or did not finish in time. */
  T join(Duration timeout) {
    try {
      return outcome.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof AssertionError) {
        throw (AssertionError) cause;
      }
      throw new AssertionError(what + " failed: " + cause, cause);
    } catch (TimeoutException e) {
      throw notFinished(timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for " + what, e);
    }
  }

  /** What the body threw; fails the test if it returned normally or did not finish in time. */
  Throwable failure(Duration timeout) {
    try {
      T result = outcome.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      throw new AssertionError(what + " was expected to fail but returned " + result);
    } catch (ExecutionException e) {
      return java.util.Objects.requireNonNull(e.getCause(), "cause"); // never null from a future
    } catch (TimeoutException e) {
      throw notFinished(timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for " + what, e);
    }
  }

  private AssertionError notFinished(Duration timeout) {
    // The stack shows where it is stuck, which is most of the diagnosis.
    return new AssertionError(String.format("%s did not finish within %s; it is at %s", what, timeout,
        Arrays.toString(thread.getStackTrace())));
  }

  /** After the test: give the thread a moment to end once clients are closed, then interrupt it. */
  void stop(Duration grace) throws InterruptedException {
    thread.join(Math.max(1, grace.toMillis()));
    if (thread.isAlive()) {
      thread.interrupt();
    }
  }
}

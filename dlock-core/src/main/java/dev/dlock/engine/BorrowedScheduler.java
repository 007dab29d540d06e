package dev.dlock.engine;

import java.util.List;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * A scheduler the client was given rather than made: shutting this view down cancels what the
 * client scheduled on it and refuses more, but leaves the scheduler itself running for its owner.
 * A task that was already due when the view shut down does nothing, so a closed client's renewal
 * period stops. Only what the engine calls is supported.
 */
final class BorrowedScheduler extends AbstractExecutorService implements ScheduledExecutorService {
  private final ScheduledExecutorService owner;
  private final Set<Tracked> scheduled = ConcurrentHashMap.newKeySet();
  private volatile boolean shut;

  BorrowedScheduler(ScheduledExecutorService owner) {
    this.owner = owner;
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    refuseIfShut();
    Tracked[] self = new Tracked[1];
    Tracked t = new Tracked(owner.schedule(() -> {
      try {
        if (!shut) {
          command.run();
        }
      } finally {
        forget(self[0]);
      }
    }, delay, unit));
    self[0] = t;
    scheduled.add(t);
    // It ran before it was added, or the client closed meanwhile. A task that runs while this line
    // is passed stays in the set until the close, which costs only the set entry.
    if (t.isDone() || shut) {
      t.cancel(false);
    }
    return t;
  }

  private void forget(@Nullable Tracked t) {
    if (t != null) {
      scheduled.remove(t);
    }
  }

  /** How many of the view's tasks it still tracks: those neither run nor cancelled. For tests. */
  int tracked() {
    return scheduled.size();
  }

  /**
   * The owner's future of one task. Why a wrapper: a cancelled task never runs, so its cancel
   * must forget it here, or a client that cancels a timer per lease (every release does) would
   * keep one entry per lease it ever held.
   */
  private final class Tracked implements ScheduledFuture<Object> {
    private final ScheduledFuture<?> f;

    Tracked(ScheduledFuture<?> f) {
      this.f = f;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      scheduled.remove(this);
      return f.cancel(mayInterruptIfRunning);
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return f.getDelay(unit);
    }

    @Override
    public int compareTo(Delayed o) {
      return f.compareTo(o instanceof Tracked t ? t.f : o);
    }

    @Override
    public boolean isCancelled() {
      return f.isCancelled();
    }

    @Override
    public boolean isDone() {
      return f.isDone();
    }

    @Override
    public @Nullable Object get() throws InterruptedException, ExecutionException {
      return f.get();
    }

    @Override
    public @Nullable Object get(long timeout, TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException {
      return f.get(timeout, unit);
    }
  }

  @Override
  public void execute(Runnable command) {
    refuseIfShut();
    owner.execute(() -> {
      if (!shut) {
        command.run();
      }
    });
  }

  private void refuseIfShut() {
    if (shut) {
      throw new RejectedExecutionException("the client is closed");
    }
  }

  @Override
  public void shutdown() {
    shut = true;
    for (Tracked t : scheduled) {
      t.cancel(false);
    }
    scheduled.clear();
  }

  @Override
  public List<Runnable> shutdownNow() {
    shutdown();
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return shut;
  }

  @Override
  public boolean isTerminated() {
    return shut;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return shut;
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("the engine schedules Runnables only");
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
    throw new UnsupportedOperationException("the engine schedules one-shot tasks only");
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("the engine schedules one-shot tasks only");
  }
}

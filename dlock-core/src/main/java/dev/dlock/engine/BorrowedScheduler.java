package dev.dlock.engine;

import java.util.List;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler the client was given rather than made: shutting this view down cancels what the
 * client scheduled on it and refuses more, but leaves the scheduler itself running for its owner.
 * A task that was already due when the view shut down does nothing, so a closed client's renewal
 * period stops. Only what the engine calls is supported.
 */
final class BorrowedScheduler extends AbstractExecutorService implements ScheduledExecutorService {
  private final ScheduledExecutorService owner;
  private final Set<ScheduledFuture<?>> scheduled = ConcurrentHashMap.newKeySet();
  private volatile boolean shut;

  BorrowedScheduler(ScheduledExecutorService owner) {
    this.owner = owner;
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    refuseIfShut();
    ScheduledFuture<?>[] self = new ScheduledFuture<?>[1];
    ScheduledFuture<?> f = owner.schedule(() -> {
      try {
        if (!shut) {
          command.run();
        }
      } finally {
        forget(self[0]);
      }
    }, delay, unit);
    self[0] = f;
    scheduled.add(f);
    // It ran before it was added, or the client closed meanwhile. A task that runs while this line
    // is passed stays in the set until the close, which costs only the set entry.
    if (f.isDone() || shut) {
      scheduled.remove(f);
      f.cancel(false);
    }
    return f;
  }

  private void forget(ScheduledFuture<?> f) {
    if (f != null) {
      scheduled.remove(f);
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
    for (ScheduledFuture<?> f : scheduled) {
      f.cancel(false);
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

package dev.dlock.engine;

import dev.dlock.testkit.VirtualTime;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler for a client whose timers run on {@link VirtualTime} while its renewal rounds run on
 * a real thread of their own, as they do in a client that makes its own threads. Why: the engine
 * runs timers with {@code schedule} and rounds with {@code execute}, and on VirtualTime alone both
 * run on the thread that advances the clock, so a renewal that hangs would stop the clock too.
 */
final class SeparateRounds extends AbstractExecutorService implements ScheduledExecutorService {
  private final ScheduledExecutorService timers;
  private final ExecutorService rounds = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "test-rounds");
    t.setDaemon(true);
    return t;
  });

  SeparateRounds(VirtualTime time) {
    this.timers = time.scheduler();
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return timers.schedule(command, delay, unit);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    return timers.schedule(callable, delay, unit);
  }

  @Override
  public void execute(Runnable command) {
    rounds.execute(command);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
      TimeUnit unit) {
    throw new UnsupportedOperationException("one-shot tasks only");
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
      TimeUnit unit) {
    throw new UnsupportedOperationException("one-shot tasks only");
  }

  /** Stops the rounds thread, interrupting a round that still hangs; the virtual timers stay. */
  @Override
  public void shutdown() {
    rounds.shutdownNow();
  }

  @Override
  public List<Runnable> shutdownNow() {
    return rounds.shutdownNow();
  }

  @Override
  public boolean isShutdown() {
    return rounds.isShutdown();
  }

  @Override
  public boolean isTerminated() {
    return rounds.isTerminated();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return rounds.awaitTermination(timeout, unit);
  }
}

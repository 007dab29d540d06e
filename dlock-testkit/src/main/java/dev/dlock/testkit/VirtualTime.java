package dev.dlock.testkit;

import static java.util.Objects.requireNonNull;

import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A clock and a scheduler that move only when a test says so, for lease arithmetic, renewal,
 * expiry and loss deadlines without waiting:
 *
 * <pre>{@code
 * VirtualTime time = new VirtualTime();
 * MemServer server = MemServer.create(time.ticker());
 * LockClient client = LockClient.builder().backend(server.newBackend())
 *     .ticker(time.ticker()).scheduler(time.scheduler()).leaseTime(Duration.ofSeconds(30)).build();
 * time.advance(Duration.ofSeconds(10)); // the renewal round due at a third of the lease has run
 * }</pre>
 *
 * <p>{@link #advance} runs every task that falls due, in deadline order (ties in the order they
 * were scheduled), on the calling thread, each with the clock set to its deadline; tasks those
 * tasks schedule run too if they fall due within the step. {@code execute} counts as due now: it
 * runs at the next {@link #advance} or {@link #runDue}, never on the caller's thread. Thread-safe;
 * a task that throws ends the step with its exception, the clock left at that task's deadline and
 * the later tasks queued.
 */
public final class VirtualTime {
  private final AtomicLong now;
  private final AtomicLong seq = new AtomicLong();
  private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();
  private final Object stepping = new Object();
  private final Scheduler scheduler = new Scheduler();

  /** A clock that starts at an arbitrary non-zero value, as {@link System#nanoTime()} may. */
  public VirtualTime() {
    this(1_000_000_000L);
  }

  /** A clock that starts at {@code startNanos}. */
  public VirtualTime(long startNanos) {
    this.now = new AtomicLong(startNanos);
  }

  /** The clock; it stands still between steps. */
  public Ticker ticker() {
    return now::get;
  }

  /** The scheduler, for {@code LockClientBuilder.scheduler}; shutting it down is refused,
   * so a client that wrongly shut down a scheduler it was given fails loudly. */
  public ScheduledExecutorService scheduler() {
    return scheduler;
  }

  /**
   * Moves the clock by {@code step}, running every task due by then.
   *
   * @throws IllegalArgumentException if {@code step} is negative
   */
  public void advance(Duration step) {
    requireNonNull(step, "step");
    if (step.isNegative()) {
      throw new IllegalArgumentException("step must not be negative: " + step);
    }
    synchronized (stepping) { // one step at a time, so tasks see the clock move only forward
      long target = now.get() + step.toNanos();
      Task<?> next;
      while ((next = nextDue(target)) != null) {
        now.set(Math.max(now.get(), next.deadline));
        next.runOrThrow();
      }
      now.set(target);
    }
  }

  /** Runs every task due now, including those executed, without moving the clock. */
  public void runDue() {
    advance(Duration.ZERO);
  }

  /** How many scheduled tasks are waiting, not counting cancelled ones. */
  public int pending() {
    synchronized (queue) {
      return (int) queue.stream().filter(t -> !t.isCancelled()).count();
    }
  }

  private @Nullable Task<?> nextDue(long target) {
    synchronized (queue) {
      while (!queue.isEmpty()) {
        Task<?> head = queue.peek();
        if (head.isCancelled()) {
          queue.poll();
        } else if (head.deadline - target <= 0) {
          return queue.poll();
        } else {
          return null;
        }
      }
      return null;
    }
  }

  private <V> Task<V> add(Task<V> task) {
    synchronized (queue) {
      queue.add(task);
    }
    return task;
  }

  /** A task and its deadline on the virtual clock. */
  private final class Task<V> extends FutureTask<V> implements RunnableScheduledFuture<V> {
    final long deadline;
    final long order = seq.getAndIncrement();

    Task(Callable<V> body, long delayNanos) {
      super(body);
      this.deadline = now.get() + Math.max(0, delayNanos);
    }

    void runOrThrow() {
      run();
      if (!isCancelled()) {
        try {
          get(0, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof RuntimeException r) {
            throw r;
          }
          if (cause instanceof Error err) {
            throw err;
          }
          throw new IllegalStateException("a virtual-time task failed", cause);
        } catch (InterruptedException | TimeoutException e) {
          throw new IllegalStateException("a virtual-time task did not finish on its run", e);
        }
      }
    }

    @Override
    public boolean isPeriodic() {
      return false;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(deadline - now.get(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      Task<?> o = (Task<?>) other;
      int c = Long.signum(deadline - o.deadline); // nanoTime-style: compare differences
      return c != 0 ? c : Long.compare(order, o.order);
    }
  }

  /** The scheduler side: one-shot tasks onto the shared queue; periodic ones are not supported. */
  private final class Scheduler extends AbstractExecutorService implements ScheduledExecutorService {

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      requireNonNull(command, "command");
      return add(new Task<>(() -> {
        command.run();
        return null;
      }, unit.toNanos(delay)));
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
      return add(new Task<>(requireNonNull(callable, "callable"), unit.toNanos(delay)));
    }

    @Override
    public void execute(Runnable command) {
      schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
        TimeUnit unit) {
      throw new UnsupportedOperationException("VirtualTime runs one-shot tasks only");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
        TimeUnit unit) {
      throw new UnsupportedOperationException("VirtualTime runs one-shot tasks only");
    }

    @Override
    public void shutdown() {
      throw new IllegalStateException("a VirtualTime scheduler belongs to its test; it is not shut down");
    }

    @Override
    public List<Runnable> shutdownNow() {
      shutdown();
      return new ArrayList<>();
    }

    @Override
    public boolean isShutdown() {
      return false;
    }

    @Override
    public boolean isTerminated() {
      return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return false;
    }
  }
}

package dev.dlock.lincheck;

import static org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt.forClasses;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.mem.MemServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;

/**
 * Model checking of the engine's waits over the in-memory server: blocking acquires, the local wait
 * queue (the gate), the hand-off of a released lock to a thread queued there, and interrupts of a
 * waiter at the gate or at the server. The scenarios are written by hand so that every waiter's
 * lock is released in the end: a wait nobody ends would hang the model. A lost wake-up at the gate
 * then shows as a hang, two holders as results no order explains, and a queue entry or grant left
 * behind in the count of names the server still keeps.
 *
 * <p>Why the timed wait at the server runs for real: Lincheck 3.7 gives {@code System.nanoTime} a
 * constant value and lets a timed park return at once, so {@code Condition.awaitNanos} spins
 * forever in the model (reported as a livelock). Ignored by the model, it sleeps for real, at most
 * the poll interval of {@value #POLL_MILLIS} ms; so a waiter at the server polls, and the model
 * does not check that its release notification arrives. The gate's wait, with no deadline, is
 * untimed and model-checked. No call has a deadline, so no wait runs out. A waiter's polling is
 * not a livelock here, so Lincheck's analysis of spin loops is off; with it on, the releasing
 * thread's own short loops, stepped through beside the poller, were taken for a livelock too.
 *
 * <p>Limits, found by breaking the engine: the model lets a parked thread wake spuriously, so a
 * gate left without its signal does not hang; and at this number of interleavings neither a grant
 * handed to a waiter that gave up nor a skipped cancel of an interrupted waiter's place was found
 * (the latter not even with 100 interleavings of its scenario alone; why is not established).
 *
 * <p>Thread ids are the operations' first argument: thread 0 has a client of its own, threads 1 to
 * 3 share one. All operations are on one name.
 */
public class EngineWaitLincheckTest {
  private static final Duration LEASE = Duration.ofHours(1);
  private static final String NAME = "n";
  private static final long POLL_MILLIS = 1;
  private static final Duration POLL = Duration.ofMillis(POLL_MILLIS);

  static {
    LincheckSetup.init();
    warmUp();
  }

  private final MemServer server = MemServer.create(() -> 0L);
  /** Steps at every read, so no two rounds of a poll look alike; no deadline is ever set. */
  private final AtomicLong engineNanos = new AtomicLong();
  private final LockClient own = client();
  private final LockClient shared = client();
  /** The thread running each thread id's operations, and whether it is in an interruptible wait. */
  private final Thread[] threads = new Thread[4];
  private final boolean[] interruptible = new boolean[4];

  private LockClient client() {
    return LockClient.builder().backend(server.newBackend()).leaseTime(LEASE)
        .ticker(engineNanos::incrementAndGet).maxPollInterval(POLL).build();
  }

  private DistributedLock view(int thread) {
    threads[thread] = Thread.currentThread();
    return (thread == 0 ? own : shared).lock(NAME);
  }

  @Operation
  public String lock(int thread) {
    view(thread).lock();
    return "ok";
  }

  /** "interrupted" if {@link #interrupt} reached this thread before it was granted. */
  @Operation
  public String lockInterruptibly(int thread) {
    DistributedLock lock = view(thread);
    synchronized (interruptible) {
      interruptible[thread] = true;
    }
    try {
      lock.lockInterruptibly();
      return "ok";
    } catch (InterruptedException e) {
      return "interrupted";
    } finally {
      synchronized (interruptible) {
        interruptible[thread] = false;
        Thread.interrupted(); // an interrupt that came with a handed grant must not reach the next operation
      }
    }
  }

  /** Interrupts {@code target} if it is inside {@link #lockInterruptibly}; the caller holds the lock. */
  @Operation
  public void interrupt(int target) {
    synchronized (interruptible) {
      if (interruptible[target]) {
        threads[target].interrupt();
      }
    }
  }

  /** A thread interrupted before it asks: refused at once, nothing held or queued. */
  @Operation
  public String interruptedLock(int thread) {
    DistributedLock lock = view(thread);
    Thread.currentThread().interrupt();
    try {
      lock.lockInterruptibly();
      return "ok";
    } catch (InterruptedException e) {
      return Thread.currentThread().isInterrupted() ? "still interrupted" : "interrupted";
    }
  }

  @Operation
  public String unlock(int thread) {
    return EngineLincheckTest.unlock(view(thread));
  }

  /** Names the server still keeps, holders or queued waiters: none once every lock is released. */
  @Operation
  public int serverNames() {
    return server.activeNames();
  }

  @Test
  void waitsHandOffsAndInterruptsAreLinearizable() {
    ModelCheckingOptions options = new ModelCheckingOptions()
        .iterations(0)
        .invocationsPerIteration(10)
        .minimizeFailedScenario(false)
        .enableAwaitLoopsAnalysis(false)
        .sequentialSpecification(Spec.class)
        // The engine's timer, renewal and clean-up threads start inside these calls; the model
        // checker cannot follow them, and a cancel's answer is awaited on a Future.
        .addGuarantee(forClasses(ThreadPoolExecutor.class.getName(), ScheduledThreadPoolExecutor.class.getName(),
            Future.class.getName(), FutureTask.class.getName()).allMethods().ignore())
        // A timed wait, run for real: see the class comment.
        // Lincheck matches the receiver's canonical class name.
        .addGuarantee(forClasses(AbstractQueuedSynchronizer.ConditionObject.class.getCanonicalName())
            .methods("awaitNanos").ignore())
        // Lincheck links each lambda again in every run, through MethodType's intern table; its
        // loops, stepped through while a waiter polls, count as a livelock.
        .addGuarantee(forClasses(name -> name.startsWith("java.lang.invoke.")).allMethods().ignore());
    // Three threads of one client: one holds, one waits at the server, one at the gate, so a
    // release hands the lock to the gate's waiter.
    options.addCustomScenario(scenario(
        List.of(List.of(op("lock", 1), op("unlock", 1)), List.of(op("lock", 2), op("unlock", 2)),
            List.of(op("lock", 3), op("unlock", 3)))));
    // Another client's release wakes the head of this client's queue at the server.
    options.addCustomScenario(scenario(
        List.of(List.of(op("lock", 0), op("unlock", 0)), List.of(op("lock", 1), op("unlock", 1)),
            List.of(op("lock", 2), op("unlock", 2)))));
    // A waiter at the server interrupted: it withdraws its place there.
    options.addCustomScenario(scenario(
        List.of(List.of(op("lock", 0), op("interrupt", 1), op("unlock", 0)),
            List.of(op("interruptedLock", 1), op("lockInterruptibly", 1), op("unlock", 1)))));
    // A waiter at the gate interrupted while the holder may be handing it the lock.
    options.addCustomScenario(scenario(
        List.of(List.of(op("lock", 1), op("interrupt", 3), op("unlock", 1)), List.of(op("lock", 2), op("unlock", 2)),
            List.of(op("lockInterruptibly", 3), op("unlock", 3)))));
    options.check(getClass());
  }

  private static Actor op(String method, int arg) {
    try {
      return new Actor(EngineWaitLincheckTest.class.getMethod(method, int.class), List.of(arg));
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException("no operation " + method, e);
    }
  }

  private static ExecutionScenario scenario(List<List<Actor>> parallel) {
    Actor names;
    try {
      names = new Actor(EngineWaitLincheckTest.class.getMethod("serverNames"), List.of());
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
    return new ExecutionScenario(List.of(), new ArrayList<>(parallel), List.of(names), null);
  }

  /** Runs this class's operations once outside Lincheck, as {@link LincheckSetup} runs the engine's paths. */
  private static void warmUp() {
    EngineWaitLincheckTest t = new EngineWaitLincheckTest();
    t.lock(0);
    t.interrupt(1);
    t.unlock(0);
    t.interruptedLock(1);
    t.lockInterruptibly(1);
    t.unlock(1);
    t.serverNames();
    t.own.close();
    t.shared.close();
  }

  /**
   * {@link LockTable} for blocking calls: a blocking lock is linearized where the name is free, so
   * its spec answers "blocked" otherwise, which the engine never returns; an interruptible one
   * answers "interrupted" there, as only a waiter can be interrupted. The holder in the scenarios
   * interrupts while it holds, so some point of the interrupted call saw the name held.
   */
  public static final class Spec {
    private final LockTable table = new LockTable();

    public String lock(int thread) {
      return table.tryLock(NAME, "t" + thread) ? "ok" : "blocked";
    }

    public String lockInterruptibly(int thread) {
      return table.tryLock(NAME, "t" + thread) ? "ok" : "interrupted";
    }

    public void interrupt(int target) {}

    public String interruptedLock(int thread) {
      return "interrupted";
    }

    public String unlock(int thread) {
      return table.unlock(NAME, "t" + thread);
    }

    public int serverNames() {
      return table.serverNames();
    }
  }
}

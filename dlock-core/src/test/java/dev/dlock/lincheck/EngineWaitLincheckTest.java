package dev.dlock.lincheck;

import static org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt.forClasses;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.LockListener;
import dev.dlock.mem.MemServer;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * Model checking of the engine's waits over the in-memory server: three threads of one client
 * queue at the name's gate, wait at the server, take grants a releasing sibling hands on, run out
 * of time, and are interrupted while they wait. Name 1 is an exclusive lock (the gate, the
 * hand-off and its streak); name 2 a fair lock, whose server queue holds a waiter's place until it
 * is cancelled, so a place left behind by a wait that ended refuses later callers of a free name.
 *
 * <p>Time: the engine's ticker steps {@value #STEP_MILLIS} ms at every read, so a wait of
 * {@value #WAIT_MILLIS} ms spins a few rounds and runs out. The model checker freezes the system
 * clock and lets a timed park return at once, so only the ticker ends a wait here. The ticker is
 * outside the model, which would otherwise switch threads at each of its reads.
 *
 * <p>Found: a timed try refused at a busy gate with the name free (it now asks once past the
 * gate). Caught when broken: a wait that ends without cancelling its place at the server. Not
 * caught at the number of interleavings CI affords: a grant handed to a waiter that was
 * interrupted or left just then (the hand-off's own narrow interleavings). What this cannot see at
 * all: a lost wake-up. A waiter that misses its signal runs out of time, and its refusal is
 * explained by the holder it waited for; the engine's loops re-check their state on any wake-up,
 * and the model wakes parked threads spuriously. The streak limit (a release goes to the server
 * after eight hand-offs in a row) shapes fairness, not results, and needs more operations than a
 * scenario here runs: {@code EngineCostTest} checks it on real threads.
 */
@Param(name = "name", gen = IntGen.class, conf = "1:2")
@Param(name = "thread", gen = ThreadIdGen.class)
@Param(name = "target", gen = IntGen.class, conf = "1:3")
public class EngineWaitLincheckTest {
  private static final Duration LEASE = Duration.ofHours(1);
  private static final long STEP_MILLIS = 1;
  private static final long WAIT_MILLIS = 6;
  // With a wait's cancel undone, the fair scenario failed in 3 of 3 runs at 30 (it ran 60 before).
  private static final int SCENARIO_INVOCATIONS = 30;

  static {
    LincheckSetup.init();
    warmUp();
  }

  /**
   * The engine's clock, outside the model: each thread's own, so a wait lasts a fixed number of the
   * waiter's own rounds, however long the others run meanwhile.
   */
  public static final class Steps implements Ticker {
    private final ThreadLocal<long[]> nanos = ThreadLocal.withInitial(() -> new long[1]);

    @Override
    public long read() {
      return nanos.get()[0] += TimeUnit.MILLISECONDS.toNanos(STEP_MILLIS);
    }
  }

  private final MemServer server = MemServer.create(() -> 0L);
  /** Each thread id's thread, and whether it is in a wait that an interrupt may end. */
  private final Thread[] threads = new Thread[4];
  private final boolean[] waiting = new boolean[4];
  private final LockClient client = LockClient.builder().backend(server.newBackend()).leaseTime(LEASE)
      .ticker(new Steps()).listener(new LockListener() {
        @Override
        public void waited(String name) {
          markWaiting();
        }
      }).build();

  private DistributedLock lock(int name, int thread) {
    synchronized (waiting) {
      threads[thread] = Thread.currentThread();
    }
    return name == 1 ? client.lock("n1") : client.fairLock("n2");
  }

  /** Granted, or refused once the wait ran out or an interrupt ended it. */
  @Operation
  public boolean tryLockFor(@Param(name = "name") int name, @Param(name = "thread") int thread) {
    DistributedLock lock = lock(name, thread);
    try {
      return lock.tryLock(WAIT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      return false;
    } finally {
      synchronized (waiting) {
        waiting[thread] = false;
        Thread.interrupted(); // one that came with a handed grant must not reach the next operation
      }
    }
  }

  @Operation
  public boolean tryLock(@Param(name = "name") int name, @Param(name = "thread") int thread) {
    return lock(name, thread).tryLock();
  }

  @Operation
  public String unlock(@Param(name = "name") int name, @Param(name = "thread") int thread) {
    return EngineLincheckTest.unlock(lock(name, thread));
  }

  /**
   * Interrupts {@code target} if it is waiting: queued at the gate, or refused once by the server.
   * Only then, as an interrupt before the call refuses even a free name, which no lock table
   * explains.
   */
  @Operation
  public void interrupt(@Param(name = "target") int target) {
    synchronized (waiting) {
      if (waiting[target]) {
        threads[target].interrupt();
      }
    }
  }

  private void markWaiting() {
    synchronized (waiting) {
      for (int i = 1; i < threads.length; i++) {
        if (threads[i] == Thread.currentThread()) {
          waiting[i] = true;
        }
      }
    }
  }

  /** Runs this class's operations once outside Lincheck (see {@link LincheckSetup}). */
  private static void warmUp() {
    EngineWaitLincheckTest t = new EngineWaitLincheckTest();
    try {
      for (int name = 1; name <= 2; name++) {
        t.tryLock(name, 1);
        t.tryLockFor(name, 2);
        t.interrupt(2);
        t.unlock(name, 1);
        t.unlock(name, 2);
      }
    } finally {
      t.client.close();
    }
  }

  @Test
  void waitsHandOffsAndInterruptsAreLinearizable() {
    LincheckSetup.options(Spec.class)
        .addGuarantee(forClasses(Steps.class.getName()).allMethods().ignore())
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(0)
        .actorsAfter(0)
        .iterations(2)
        .invocationsPerIteration(10)
        .check(getClass());
  }

  /**
   * Scenarios that reach the hand-off and the cancels in most interleavings. Thread 1 holds the
   * name while threads 2 and 3 wait for it, one at the server and one at the gate; its release
   * hands the lock to the one at the gate, or goes to the server; then it interrupts a waiter,
   * which may be about to take the grant handed to it. Every hold ends, so once all are done the
   * name must be free: a grant handed to a waiter that left, or a place at the server that a wait
   * left behind, shows as a refusal of the last try, which runs after them all.
   */
  @Test
  void handOffsAndCancelsLeaveNothingBehind() {
    LincheckSetup.options(Spec.class)
        .addGuarantee(forClasses(Steps.class.getName()).allMethods().ignore())
        .iterations(0)
        .invocationsPerIteration(SCENARIO_INVOCATIONS)
        .addCustomScenario(handOff(1, 3))
        .addCustomScenario(handOff(1, 2))
        .addCustomScenario(handOff(2, 3))
        .check(getClass());
  }

  private static ExecutionScenario handOff(int name, int interrupted) {
    return new ExecutionScenario(List.of(), List.of(
        List.of(op("tryLock", name, 1), op("unlock", name, 1), op("interrupt", interrupted)),
        List.of(op("tryLockFor", name, 2), op("unlock", name, 2)),
        List.of(op("tryLockFor", name, 3), op("unlock", name, 3))),
        List.of(op("tryLock", name, 1)), null);
  }

  private static Actor op(String method, Object... args) {
    return LincheckSetup.op(EngineWaitLincheckTest.class, method, args);
  }

  /** {@link LockTable}: a wait that ended without a grant is refused where the name is held. */
  public static final class Spec extends EngineLincheckTest.Spec {
    public boolean tryLockFor(int name, int thread) {
      return tryLock(name, thread);
    }

    public void interrupt(int target) {}
  }
}

package dev.dlock.lincheck;

import dev.dlock.DistributedLock;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.mem.MemServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * Model checking of the engine over the in-memory server: Lincheck runs the operations below on
 * three threads in many interleavings and checks each result against {@link LockTable}. Threads 1
 * and 3 share one client (reentry, the local gate); thread 2 has a client of its own. Each instance
 * is a fresh server, so scenarios do not meet.
 */
@Param(name = "name", gen = IntGen.class, conf = "1:2")
@Param(name = "thread", gen = ThreadIdGen.class)
public class EngineLincheckTest {
  private static final Duration LEASE = Duration.ofHours(1);

  static {
    LincheckSetup.init();
    warmUp();
  }

  private final AtomicLong serverNanos = new AtomicLong();
  private final MemServer server = MemServer.create(serverNanos::get);
  private final LockClient shared = client();
  private final LockClient own = client();

  private LockClient client() {
    return LockClient.builder().backend(server.newBackend()).leaseTime(LEASE).ticker(() -> 0L).build();
  }

  /** Thread 2 has a client of its own; the others share one. */
  private DistributedLock lock(int thread, int name) {
    return (thread == 2 ? own : shared).lock("n" + name);
  }

  static String unlock(DistributedLock lock) {
    try {
      lock.unlock();
      return "ok";
    } catch (IllegalMonitorStateException e) {
      return "not held";
    } catch (LeaseLostException e) {
      return "lost";
    }
  }

  // The thread's id is a parameter, so the specification knows which thread asks: the Lock view is
  // owned by the thread.

  @Operation
  public boolean tryLock(@Param(name = "name") int name, @Param(name = "thread") int thread) {
    return lock(thread, name).tryLock();
  }

  @Operation
  public String unlock(@Param(name = "name") int name, @Param(name = "thread") int thread) {
    return unlock(lock(thread, name));
  }

  @Operation
  public int holdCount(@Param(name = "name") int name, @Param(name = "thread") int thread) {
    return lock(thread, name).holdCount();
  }

  /**
   * The server's clock jumps past every lease, as after a long pause of the holders' process. Not
   * an operation here, to keep this check's time: {@link EngineLossLincheckTest} checks loss.
   */
  public void expireLeases() {
    serverNanos.addAndGet(LEASE.multipliedBy(2).toNanos());
  }

  /**
   * Runs this class's operations once outside Lincheck, lost release included: a class loaded, or a
   * lambda first linked, inside the model checker hangs its execution ({@link LincheckSetup} runs
   * the engine's waiting paths).
   */
  private static void warmUp() {
    EngineLincheckTest t = new EngineLincheckTest();
    t.tryLock(1, 0);
    t.tryLock(1, 0);
    t.holdCount(1, 0);
    t.unlock(1, 1);
    t.expireLeases();
    t.tryLock(1, 2);
    t.unlock(1, 0);
    t.unlock(1, 0);
    t.shared.close();
    t.own.close();
  }

  @Test
  void theEngineIsALinearizableLockTable() {
    LincheckSetup.options(Spec.class)
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(0)
        .actorsAfter(0)
        .iterations(4)
        .invocationsPerIteration(10)
        .check(getClass());
  }

  /**
   * The counterexample Lincheck found, as a scenario of its own: a thread's tryLock answered false
   * while another thread of its client was asking the server for the name (it held the client's
   * gate), even with the name free. Thread 1 enters the gate; thread 3, of the same client, tries;
   * thread 2, of another client, takes n1 and releases it; thread 1 is granted. No order explained
   * a false from thread 3: nobody held n1 before thread 2 took it, and thread 1's grant came after
   * thread 2's release. A try that does not wait now asks the server once past a busy gate.
   */
  @Test
  void aTryLockIsRefusedOnlyWhileTheNameIsHeld() {
    LincheckSetup.options(Spec.class)
        .iterations(0)
        // With the fix undone this failed in 3 of 3 runs at 200 invocations (it ran 500 before) and
        // passed at 50: keep the count well above 50.
        .invocationsPerIteration(200)
        .addCustomScenario(new ExecutionScenario(List.of(),
            List.of(List.of(op("tryLock", 1, 1)), List.of(op("tryLock", 1, 2), op("unlock", 1, 2)),
                List.of(op("tryLock", 1, 3))),
            List.of(), null))
        .check(getClass());
  }

  private static Actor op(String method, int name, int thread) {
    return LincheckSetup.op(EngineLincheckTest.class, method, name, thread);
  }


  /** {@link LockTable} with the operations' signatures, as Lincheck matches them by name. */
  public static class Spec {
    private final LockTable table = new LockTable();

    public boolean tryLock(int name, int thread) {
      return table.tryLock("n" + name, "t" + thread);
    }

    public String unlock(int name, int thread) {
      return table.unlock("n" + name, "t" + thread);
    }

    public int holdCount(int name, int thread) {
      return table.holdCount("n" + name, "t" + thread);
    }

    public void expireLeases() {
      table.expireLeases();
    }
  }
}

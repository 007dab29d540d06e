package dev.dlock.lincheck;

import static org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt.forClasses;

import dev.dlock.DistributedLock;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.mem.MemServer;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Model checking of the engine over the in-memory server: Lincheck runs the operations below on
 * three threads in many interleavings and checks each result against {@link LockTable}. Owners a
 * and b share one client (reentry, the local gate); owner c has a client of its own. Each instance
 * is a fresh server, so scenarios do not meet.
 */
@Param(name = "name", gen = IntGen.class, conf = "1:2")
public class EngineLincheckTest {
  private static final Duration LEASE = Duration.ofHours(1);

  static {
    warmUp();
  }

  private final AtomicLong serverNanos = new AtomicLong();
  private final MemServer server = MemServer.create(serverNanos::get);
  private final LockClient shared = client();
  private final LockClient own = client();

  private LockClient client() {
    return LockClient.builder().backend(server.newBackend()).leaseTime(LEASE).ticker(() -> 0L).build();
  }

  private DistributedLock lock(String owner, int name) {
    return (owner.equals("c") ? own : shared).lock("n" + name);
  }

  private static String unlock(DistributedLock lock) {
    try {
      lock.unlock();
      return "ok";
    } catch (IllegalMonitorStateException e) {
      return "not held";
    } catch (LeaseLostException e) {
      return "lost";
    }
  }

  // One non-parallel group per owner keeps its operations on one thread, as the Lock view is owned
  // by the thread; owners a and b share a client, c has its own.

  @Operation(nonParallelGroup = "a")
  public boolean tryLockA(@Param(name = "name") int name) {
    return lock("a", name).tryLock();
  }

  @Operation(nonParallelGroup = "a")
  public String unlockA(@Param(name = "name") int name) {
    return unlock(lock("a", name));
  }

  @Operation(nonParallelGroup = "a")
  public int holdCountA(@Param(name = "name") int name) {
    return lock("a", name).holdCount();
  }

  @Operation(nonParallelGroup = "b")
  public boolean tryLockB(@Param(name = "name") int name) {
    return lock("b", name).tryLock();
  }

  @Operation(nonParallelGroup = "b")
  public String unlockB(@Param(name = "name") int name) {
    return unlock(lock("b", name));
  }

  @Operation(nonParallelGroup = "c")
  public boolean tryLockC(@Param(name = "name") int name) {
    return lock("c", name).tryLock();
  }

  @Operation(nonParallelGroup = "c")
  public String unlockC(@Param(name = "name") int name) {
    return unlock(lock("c", name));
  }

  /** The server's clock jumps past every lease, as after a long pause of the holders' process. */
  @Operation
  public void expireLeases() {
    serverNanos.addAndGet(LEASE.multipliedBy(2).toNanos());
  }

  /**
   * Runs a lost release once outside Lincheck: a class first loaded inside the model checker (the
   * exceptions and their message formatting) hangs its execution.
   */
  private static void warmUp() {
    EngineLincheckTest t = new EngineLincheckTest();
    t.tryLockA(1);
    t.tryLockA(1);
    t.tryLockB(1);
    t.unlockB(1);
    t.expireLeases();
    t.tryLockC(1);
    t.unlockA(1);
    t.unlockA(1);
    t.shared.close();
    t.own.close();
  }

  @Test
  @Disabled("work in progress: on this machine the model checker reports 'the execution has hung' while"
      + " its agent instruments classes mid-scenario, and 200 invocations take about 4 minutes")
  void theEngineIsALinearizableLockTable() {
    new ModelCheckingOptions()
        .threads(3)
        .actorsPerThread(2)
        .actorsBefore(0)
        .actorsAfter(0)
        .iterations(5)
        .invocationsPerIteration(40)
        .sequentialSpecification(Spec.class)
        // The engine's timer and renewal threads start inside these calls; the model checker
        // cannot follow a thread started mid-operation, and the timers never fire in a scenario.
        .addGuarantee(forClasses(ThreadPoolExecutor.class.getName(), ScheduledThreadPoolExecutor.class.getName())
            .allMethods().ignore())
        .check(getClass());
  }

  /** {@link LockTable} with the operations' signatures, as Lincheck matches them by name. */
  public static final class Spec {
    private final LockTable table = new LockTable();

    public boolean tryLockA(int name) {
      return table.tryLock("n" + name, "a");
    }

    public String unlockA(int name) {
      return table.unlock("n" + name, "a");
    }

    public boolean tryLockB(int name) {
      return table.tryLock("n" + name, "b");
    }

    public String unlockB(int name) {
      return table.unlock("n" + name, "b");
    }

    public boolean tryLockC(int name) {
      return table.tryLock("n" + name, "c");
    }

    public String unlockC(int name) {
      return table.unlock("n" + name, "c");
    }

    public int holdCountA(int name) {
      return table.holdCount("n" + name, "a");
    }

    public void expireLeases() {
      table.expireLeases();
    }
  }
}

package dev.dlock.lincheck;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.mem.MemServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * Model checking of lease loss and of waits that run out, over the in-memory server: the server's
 * clock jumps past every lease beside acquires and releases in flight, and a wait with a timeout
 * queues at the server and withdraws. Each thread has a client of its own, so the threads meet
 * only at the server; {@link EngineLincheckTest} covers threads that share a client.
 *
 * <p>The engine's ticker steps {@value #STEP_MILLIS} ms at every read, so a wait of
 * {@value #WAIT_MILLIS} ms asks the server once, queued, and runs out before it would sleep: the
 * model checker treats a timed sleep as an endless one, which nothing might end.
 */
@Param(name = "name", gen = IntGen.class, conf = "1:2")
@Param(name = "thread", gen = ThreadIdGen.class)
public class EngineLossLincheckTest {
  private static final Duration LEASE = Duration.ofHours(1);
  private static final long STEP_MILLIS = 1;
  private static final long WAIT_MILLIS = 3;

  static {
    LincheckSetup.init();
    warmUp();
  }

  private final AtomicLong serverNanos = new AtomicLong();
  private final AtomicLong engineNanos = new AtomicLong();
  private final MemServer server = MemServer.create(serverNanos::get);
  private final LockClient[] clients = {client(), client(), client(), client()};

  private LockClient client() {
    long step = TimeUnit.MILLISECONDS.toNanos(STEP_MILLIS);
    return LockClient.builder().backend(server.newBackend()).leaseTime(LEASE)
        .ticker(() -> engineNanos.addAndGet(step)).build();
  }

  private DistributedLock lock(int thread, int name) {
    return clients[thread].lock("n" + name);
  }

  @Operation
  public boolean tryLock(@Param(name = "name") int name, @Param(name = "thread") int thread) {
    return lock(thread, name).tryLock();
  }

  /** Granted only if the name is free when the server is asked: the wait runs out before any sleep. */
  @Operation
  public boolean tryLockFor(@Param(name = "name") int name, @Param(name = "thread") int thread)
      throws InterruptedException {
    return lock(thread, name).tryLock(WAIT_MILLIS, TimeUnit.MILLISECONDS);
  }

  @Operation
  public String unlock(@Param(name = "name") int name, @Param(name = "thread") int thread) {
    return EngineLincheckTest.unlock(lock(thread, name));
  }

  @Operation
  public int holdCount(@Param(name = "name") int name, @Param(name = "thread") int thread) {
    return lock(thread, name).holdCount();
  }

  /** The server's clock jumps past every lease, as after a long pause of the holders' process. */
  @Operation
  public void expireLeases() {
    serverNanos.addAndGet(LEASE.multipliedBy(2).toNanos());
  }

  /** Runs every path once outside Lincheck: a lost release, and a wait that runs out at the server. */
  private static void warmUp() {
    EngineLossLincheckTest t = new EngineLossLincheckTest();
    try {
      t.tryLock(1, 1);
      t.tryLockFor(1, 1);
      t.holdCount(1, 1);
      t.tryLockFor(1, 2);
      t.expireLeases();
      t.tryLockFor(1, 2);
      t.unlock(1, 1);
      t.unlock(1, 1);
      t.unlock(1, 2);
      t.unlock(1, 2);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    } finally {
      for (LockClient c : t.clients) {
        c.close();
      }
    }
  }

  @Test
  void lossAndTimeoutsAreLinearizable() {
    LincheckSetup.options(Spec.class)
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(0)
        .actorsAfter(0)
        // Few: the random scenarios add little to the one below, and CI's time is short.
        .iterations(2)
        .invocationsPerIteration(10)
        // Few random scenarios meet a release after the jump; this one does in every order where
        // thread 1 got the lock.
        .addCustomScenario(new ExecutionScenario(List.of(),
            List.of(List.of(op("tryLock", 1, 1), op("expireLeases"), op("unlock", 1, 1)),
                List.of(op("tryLockFor", 1, 2), op("unlock", 1, 2)), List.of(op("tryLock", 1, 3), op("holdCount", 1, 3))),
            List.of(), null))
        .check(getClass());
  }

  private static Actor op(String method, Object... args) {
    return LincheckSetup.op(EngineLossLincheckTest.class, method, args);
  }


  /**
   * {@link LockTable}: a wait that runs out is refused where the name is held, as a try is. Loss
   * needs nothing more: the server frees an expired name at once, and its holder keeps its count
   * until it learns of the loss at release.
   */
  public static final class Spec extends EngineLincheckTest.Spec {
    public boolean tryLockFor(int name, int thread) {
      return tryLock(name, thread);
    }
  }

}

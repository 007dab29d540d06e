package dev.dlock.lincheck;

import static org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt.forClasses;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.LockListener;
import dev.dlock.mem.MemServer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;

/**
 * What every Lincheck test here needs before its first scenario, done once per JVM. All classes are
 * instrumented up front, so none is re-instrumented in the middle of a scenario, and the engine's
 * waiting paths run once on real threads, as a class loaded or a lambda first linked inside the
 * model checker hangs it. Why a class of its own: the warm-up's threads run lambdas, which would
 * wait forever for a test class still in its static initializer.
 */
final class LincheckSetup {
  private static boolean done;

  private LincheckSetup() {}

  /**
   * The options every check here starts from: {@code specification} as the sequential model;
   * failed scenarios kept as found, since the minimizer may move an operation to another thread,
   * which changes whose lock it takes; and the engine's own executors and futures outside the
   * model, since its timer, renewal and clean-up threads start inside the calls, which the model
   * checker cannot follow, and a cancel's answer is awaited on a future.
   */
  static ModelCheckingOptions options(Class<?> specification) {
    return new ModelCheckingOptions()
        .minimizeFailedScenario(false)
        .sequentialSpecification(specification)
        .addGuarantee(forClasses(ThreadPoolExecutor.class.getName(), ScheduledThreadPoolExecutor.class.getName(),
            Future.class.getName(), FutureTask.class.getName()).allMethods().ignore());
  }

  /** The operation {@code method} of {@code test}, whose parameters are all ints, called with {@code args}. */
  static Actor op(Class<?> test, String method, Object... args) {
    Class<?>[] types = new Class<?>[args.length];
    Arrays.fill(types, int.class);
    try {
      return new Actor(test.getMethod(method, types), List.of(args));
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException("no operation " + method + " with " + args.length + " ints in " + test, e);
    }
  }

  static synchronized void init() {
    System.setProperty("lincheck.instrumentAllClasses", "true");
    if (!done) {
      done = true;
      warmUp();
    }
  }

  /**
   * A release handed to a thread queued at the gate; waiters interrupted at the gate and at the
   * server; a wait that runs out at the server, on a ticker that steps. The listener's latch says
   * when the waiters have queued.
   */
  private static void warmUp() {
    MemServer server = MemServer.create(() -> 0L);
    CountDownLatch[] queued = {new CountDownLatch(2)};
    LockListener listener = new LockListener() {
      @Override
      public void waited(String name) {
        queued[0].countDown();
      }
    };
    AtomicLong nanos = new AtomicLong();
    LockClient one = client(server, listener, () -> 0L);
    LockClient two = client(server, listener, () -> nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(1)));
    try {
      DistributedLock main = one.lock("n");
      main.lock();
      Thread head = start(one.lock("n"), false);
      Thread gate = start(one.lock("n"), false);
      await(queued[0]);
      main.unlock(); // handed to the gate's waiter
      join(head, gate);
      queued[0] = new CountDownLatch(3);
      main.lock();
      head = start(one.lock("n"), false);
      gate = start(one.lock("n"), true);
      Thread other = start(two.lock("n"), true);
      await(queued[0]);
      gate.interrupt();
      other.interrupt();
      join(gate, other);
      two.lock("n").tryLock(3, TimeUnit.MILLISECONDS); // runs out at the server
      main.unlock();
      join(head);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    } finally {
      one.close();
      two.close();
    }
  }

  private static LockClient client(MemServer server, LockListener listener, dev.dlock.spi.Ticker ticker) {
    return LockClient.builder().backend(server.newBackend()).leaseTime(Duration.ofHours(1)).ticker(ticker)
        .listener(listener).build();
  }

  private static Thread start(DistributedLock lock, boolean interruptibly) {
    Thread t = new Thread(() -> {
      try {
        if (interruptibly) {
          lock.lockInterruptibly();
        } else {
          lock.lock();
        }
        lock.unlock();
      } catch (InterruptedException e) {
        // the interrupted waiters
      }
    });
    t.start();
    return t;
  }

  private static void await(CountDownLatch latch) throws InterruptedException {
    latch.await();
  }

  private static void join(Thread... ts) throws InterruptedException {
    for (Thread t : ts) {
      t.join();
    }
  }
}

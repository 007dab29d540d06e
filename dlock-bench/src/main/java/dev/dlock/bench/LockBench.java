package dev.dlock.bench;

import dev.dlock.bench.targets.Target;
import dev.dlock.bench.targets.Targets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.Control;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Workloads W1 to W3 under JMH: one lock+unlock per operation. Throughput mode gives W1's ops/s;
 * the sixteen-thread workloads also report every call to {@link CommonWindow}, whose count over one
 * common wall-clock window is their ops/s (JMH's own sum of per-thread rates overstates an unfair
 * lock). SampleTime gives the distribution of one operation, p50 and p99. {@link BenchMain} runs
 * these, one target at a time, through the {@code target} parameter.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class LockBench {
  /** Threads spread over this many clients, so a distributed target sees several processes. */
  static final int CLIENTS = 4;
  /** W3 picks among this many keys; a power of two, so a mask picks one. */
  static final int KEYS = 1024;
  static final String ONE_KEY = "bench:one";

  @Param("mem")
  public String target;

  Target impl;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    impl = Targets.create(target);
    impl.setUp(CLIENTS);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    impl.tearDown();
  }

  /** The single key's lock as seen by this thread's client. */
  @State(Scope.Thread)
  public static class OneKey {
    Lock lock;

    @Setup(Level.Trial)
    public void setUp(LockBench bench, ThreadParams thread) {
      lock = bench.impl.lock(thread.getThreadIndex() % CLIENTS, ONE_KEY);
    }
  }

  /** The single key's lock as client 0 sees it, for every thread: W2-1c's one client. */
  @State(Scope.Thread)
  public static class OneClient {
    Lock lock;

    @Setup(Level.Trial)
    public void setUp(LockBench bench) {
      lock = bench.impl.lock(0, ONE_KEY);
    }
  }

  /** All W3 keys' locks as seen by this thread's client, and a per-thread random key picker. */
  @State(Scope.Thread)
  public static class ManyKeys {
    Lock[] locks;
    int seed;

    @Setup(Level.Trial)
    public void setUp(LockBench bench, ThreadParams thread) {
      int client = thread.getThreadIndex() % CLIENTS;
      locks = new Lock[KEYS];
      for (int i = 0; i < KEYS; i++) {
        locks[i] = bench.impl.lock(client, "bench:key-" + i);
      }
      seed = 0x9E3779B9 * (thread.getThreadIndex() + 1);
    }

    /** Xorshift: a few cycles, so picking the key costs next to nothing beside the lock. */
    Lock next() {
      int x = seed;
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      seed = x;
      return locks[x & (KEYS - 1)];
    }
  }

  /** W1: one thread, one key. */
  @Benchmark
  @Threads(1)
  public void w1(OneKey s) {
    s.lock.lock();
    s.lock.unlock();
  }

  /** W2: sixteen threads on one key, spread over the clients. */
  @Benchmark
  @Threads(16)
  public void w2(OneKey s, Control control) {
    CommonWindow.enter(control);
    s.lock.lock();
    s.lock.unlock();
    CommonWindow.completed(control);
  }

  /**
   * W2-1c: sixteen threads on one key through one client, the contention inside one process that
   * the engine's local queue and hand-off are for.
   */
  @Benchmark
  @Threads(16)
  public void w2_1c(OneClient s, Control control) {
    CommonWindow.enter(control);
    s.lock.lock();
    s.lock.unlock();
    CommonWindow.completed(control);
  }

  /** W3: sixteen threads over 1024 keys, picked at random. */
  @Benchmark
  @Threads(16)
  public void w3(ManyKeys s, Control control) {
    CommonWindow.enter(control);
    Lock lock = s.next();
    lock.lock();
    lock.unlock();
    CommonWindow.completed(control);
  }
}

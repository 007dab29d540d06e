package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@link DistributedLock} on proxied beans, on a real backend. */
class DistributedLockAnnotationTest {

  /** U4: two machines rebuild one gear's cache entry; the rebuilds never overlap. */
  @Test
  void twoMachinesNeverRebuildTheSameGearAtOnce() throws Exception {
    List<Rebuild> rebuilds = new CopyOnWriteArrayList<>();
    String url = TestRedis.url();
    machine(url, rebuilds).run(a -> machine(url, rebuilds).run(b -> {
      GearCache[] caches = {a.getBean(GearCache.class), b.getBean(GearCache.class)};
      int threads = 4;
      int rounds = 10;
      CyclicBarrier start = new CyclicBarrier(threads);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          GearCache cache = caches[t % 2];
          done.add(pool.submit(() -> {
            start.await();
            for (int i = 0; i < rounds; i++) {
              cache.rebuild(new Gear("g-7"), null);
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
    }));
    assertThat(rebuilds).hasSize(40);
    List<Rebuild> byToken = rebuilds.stream().sorted(Comparator.comparingLong(Rebuild::token)).toList();
    for (int i = 1; i < byToken.size(); i++) {
      Rebuild before = byToken.get(i - 1);
      Rebuild after = byToken.get(i);
      assertThat(after.token()).as("tokens grow with every rebuild").isGreaterThan(before.token());
      assertThat(after.start()).as("rebuild %d began after rebuild %d ended", i, i - 1)
          .isGreaterThan(before.end());
    }
    assertThat(rebuilds).allSatisfy(r -> assertThat(r.current()).as("CurrentLease is the injected one")
        .isTrue());
  }

  @Test
  void theNameComesFromTheArgumentsSoOtherGearsDoNotWait() throws Exception {
    String url = Runners.h2Url("spel");
    Runners.runner().withPropertyValues("dlock.url=" + url)
        .withBean(GearCache.class, () -> new GearCache(new CopyOnWriteArrayList<>()))
        .run(ctx -> {
          GearCache cache = ctx.getBean(GearCache.class);
          assertThat(cache.rebuildOrFail(new Gear("busy"))).as("free before the other machine takes it")
              .isEqualTo("busy");
          try (LockClient otherMachine = LockClient.connect(url);
              Lease held = otherMachine.lock("gear:busy").acquire(Duration.ofSeconds(5))) {
            assertThat(cache.rebuild(new Gear("free"), null)).isEqualTo("free");
            assertThatThrownBy(() -> cache.rebuildOrFail(new Gear("busy")))
                .isInstanceOf(LockTimeoutException.class).hasMessageContaining("gear:busy");
            assertThat(cache.rebuildOrSkip(new Gear("busy"))).isEmpty();
            assertThat(cache.countOrSkip(new Gear("busy"))).isNull();
          }
          assertThat(cache.rebuildOrSkip(new Gear("busy"))).contains("busy");
        });
  }

  @Test
  void readersShareAndAWriterExcludesThem() throws Exception {
    Runners.runner().withPropertyValues("dlock.url=" + TestRedis.url())
        .withBean(Catalog.class, Catalog::new)
        .run(ctx -> {
          Catalog catalog = ctx.getBean(Catalog.class);
          String name = "catalog-" + System.nanoTime();
          CountDownLatch bothIn = new CountDownLatch(2);
          CountDownLatch leave = new CountDownLatch(1);
          ExecutorService pool = Executors.newFixedThreadPool(3);
          try {
            Future<?> r1 = pool.submit(() -> catalog.read(name, bothIn, leave));
            Future<?> r2 = pool.submit(() -> catalog.read(name, bothIn, leave));
            assertThat(bothIn.await(10, TimeUnit.SECONDS)).as("two readers inside at once").isTrue();
            assertThat(catalog.writeOrSkip(name)).as("a writer while readers hold").isNull();
            leave.countDown();
            r1.get(10, TimeUnit.SECONDS);
            r2.get(10, TimeUnit.SECONDS);
            assertThat(catalog.writeOrSkip(name)).isTrue();
          } finally {
            pool.shutdownNow();
          }
        });
  }

  @Test
  void badAttributesFailTheStartNamingTheMethodAndValue() {
    failsNaming(BadWait.class, BadWait::new, "BadWait.call()", "maxWait = '5 parsecs'");
    failsNaming(BadSkip.class, BadSkip::new, "BadSkip.count()", "returns int");
    failsNaming(BadLeaseOnRead.class, BadLeaseOnRead::new, "BadLeaseOnRead.read()", "READ");
    failsNaming(BadAtLeast.class, BadAtLeast::new, "BadAtLeast.run()", "lockAtLeastFor = PT1M");
    failsNaming(BadName.class, BadName::new, "BadName.call()", "'gear:' +");
  }

  @Test
  void aLockedMethodWithNoClientFailsTheStart() {
    Runners.runner().withBean(Catalog.class, Catalog::new)
        .run(ctx -> assertThat(messages(ctx.getStartupFailure()))
            .contains("no LockClient").contains("Catalog.read()"));
  }

  private static <T> void failsNaming(Class<T> type, java.util.function.Supplier<T> bean,
      String method, String value) {
    Runners.runner().withPropertyValues("dlock.url=mem:").withBean(type, bean)
        .run(ctx -> assertThat(messages(ctx.getStartupFailure())).contains(method).contains(value));
  }

  private static String messages(Throwable failure) {
    assertThat(failure).as("the context failed to start").isNotNull();
    StringBuilder all = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      all.append(t.getMessage()).append('\n');
    }
    return all.toString();
  }

  private static ApplicationContextRunner machine(String url, List<Rebuild> rebuilds) {
    return Runners.runner().withPropertyValues("dlock.url=" + url)
        .withBean(GearCache.class, () -> new GearCache(rebuilds));
  }

  record Gear(String id) {}

  record Rebuild(long token, long start, long end, boolean current) {}

  static class GearCache {
    private final List<Rebuild> rebuilds;

    GearCache(List<Rebuild> rebuilds) {
      this.rebuilds = rebuilds;
    }

    @DistributedLock(name = "'gear:' + #gear.id", maxWait = "PT30S")
    public String rebuild(Gear gear, Lease lease) {
      long start = System.nanoTime();
      java.util.concurrent.locks.LockSupport.parkNanos(2_000_000); // the rebuild's work
      boolean current = CurrentLease.get().orElseThrow() == lease;
      rebuilds.add(new Rebuild(lease.token(), start, System.nanoTime(), current));
      return gear.id();
    }

    @DistributedLock(name = "'gear:' + #p0.id", maxWait = "PT0.2S")
    public String rebuildOrFail(Gear gear) {
      return gear.id();
    }

    @DistributedLock(name = "'gear:' + #gear.id", maxWait = "PT0.2S",
        onTimeout = DistributedLock.OnTimeout.SKIP)
    public Optional<String> rebuildOrSkip(Gear gear) {
      return Optional.of(gear.id());
    }

    @DistributedLock(name = "'gear:' + #gear.id", maxWait = "0s",
        onTimeout = DistributedLock.OnTimeout.SKIP)
    public Integer countOrSkip(Gear gear) {
      return 1;
    }
  }

  static class Catalog {
    @DistributedLock(name = "#name", kind = DistributedLock.Kind.READ)
    public void read(String name, CountDownLatch in, CountDownLatch leave) {
      in.countDown();
      try {
        leave.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @DistributedLock(name = "#name", kind = DistributedLock.Kind.WRITE, maxWait = "PT0.2S",
        onTimeout = DistributedLock.OnTimeout.SKIP)
    public Boolean writeOrSkip(String name) {
      return true;
    }
  }

  static class BadWait {
    @DistributedLock(name = "'x'", maxWait = "5 parsecs")
    public void call() {}
  }

  static class BadSkip {
    @DistributedLock(name = "'x'", onTimeout = DistributedLock.OnTimeout.SKIP)
    public int count() {
      return 1;
    }
  }

  static class BadLeaseOnRead {
    @DistributedLock(name = "'x'", kind = DistributedLock.Kind.READ, lease = "PT5S")
    public void read() {}
  }

  static class BadName {
    @DistributedLock(name = "'gear:' +")
    public void call() {}
  }

  static class BadAtLeast {
    @ScheduledLock(name = "x", lockAtMostFor = "PT10S", lockAtLeastFor = "PT1M")
    public void run() {}
  }
}

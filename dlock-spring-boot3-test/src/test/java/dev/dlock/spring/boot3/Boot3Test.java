package dev.dlock.spring.boot3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockTimeoutException;
import dev.dlock.spring.DistributedLock;
import dev.dlock.spring.DlockAnnotationsAutoConfiguration;
import dev.dlock.spring.DlockAutoConfiguration;
import dev.dlock.spring.DlockMetricsAutoConfiguration;
import dev.dlock.spring.ScheduledLock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.SpringVersion;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The starter's one artifact, built against Boot 4, on Spring Boot 3.5 and Spring Framework 6.2:
 * the client on the application's DataSource, {@code @ScheduledLock} across two nodes, one of
 * them 200 ms ahead, {@code @DistributedLock}, and the meters. The health indicator is written
 * against Boot 4's new health package, so it backs off on 3.5; the endpoint is not tried here.
 */
class Boot3Test {
  private static final int TICKS = 5;

  @Test
  void runsOnBoot35() {
    assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
    assertThat(SpringVersion.getVersion()).startsWith("6.2.");
  }

  @Test
  void scheduledRunsOnceEachTickAcrossTwoNodesOnTheDataSource() throws Exception {
    DataSource db = h2("boot3-sched");
    Map<Long, List<String>> runs = new ConcurrentHashMap<>();
    CountDownLatch last = new CountDownLatch(1);
    long first = System.currentTimeMillis() / 1000 + 3;
    node(db, "a", Duration.ZERO, runs, first + TICKS, last).run(a ->
        node(db, "b", Duration.ofMillis(200), runs, first + TICKS, last).run(b -> {
          assertThat(a).hasNotFailed();
          assertThat(b).hasNotFailed();
          assertThat(last.await(TICKS + 15, TimeUnit.SECONDS)).isTrue();
          for (long tick = first; tick < first + TICKS; tick++) {
            assertThat(runs.getOrDefault(tick, List.of())).as("nodes that ran tick %d", tick).hasSize(1);
          }
          assertThat(a.getBean(MeterRegistry.class).counter("dlock.scheduled.skipped", "backend", "jdbc")
              .count() + b.getBean(MeterRegistry.class).counter("dlock.scheduled.skipped", "backend", "jdbc")
              .count()).isGreaterThanOrEqualTo(TICKS);
        }));
  }

  @Test
  void distributedLockWaitsThrowsAndPassesTheLease() {
    DataSource db = h2("boot3-call");
    runner(db).withBean(Gears.class, Gears::new).run(ctx -> {
      assertThat(ctx).hasNotFailed();
      Gears gears = ctx.getBean(Gears.class);
      assertThat(gears.rebuild("g1", null)).isPositive();
      try (LockClient other = LockClient.builder()
              .backend(dev.dlock.jdbc.JdbcLockBackend.builder().dataSource(db).build()).build();
          Lease held = other.lock("gear:g1").acquire(Duration.ofSeconds(5))) {
        assertThatThrownBy(() -> gears.rebuild("g1", null)).isInstanceOf(LockTimeoutException.class)
            .hasMessageContaining("gear:g1");
      }
    });
  }

  @Test
  void aNameByParameterNameWithoutParameterNamesFailsTheStart() {
    runner(h2("boot3-names")).withBean(NamedGears.class, NamedGears::new).run(ctx -> {
      assertThat(ctx).hasFailed();
      StringBuilder messages = new StringBuilder();
      for (Throwable t = ctx.getStartupFailure(); t != null; t = t.getCause()) {
        messages.append(t.getMessage());
      }
      assertThat(messages.toString()).contains("NamedGears.rebuild()").contains("#id")
          .contains("-parameters");
    });
  }

  private static ApplicationContextRunner runner(DataSource db) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DlockMetricsAutoConfiguration.class,
            DlockAutoConfiguration.class, DlockAnnotationsAutoConfiguration.class))
        .withBean(DataSource.class, () -> db)
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new);
  }

  private static ApplicationContextRunner node(DataSource db, String name, Duration shift,
      Map<Long, List<String>> runs, long lastTick, CountDownLatch last) {
    return runner(db)
        .withBean(Clock.class, () -> Clock.offset(Clock.systemUTC(), shift))
        .withBean(Job.class, () -> new Job(Clock.offset(Clock.systemUTC(), shift), name, runs, lastTick, last))
        .withUserConfiguration(Node.class);
  }

  private static DataSource h2(String name) {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
    return ds;
  }

  @Configuration(proxyBeanMethods = false)
  @EnableScheduling
  static class Node {
    @Bean
    ThreadPoolTaskScheduler taskScheduler(Clock clock) {
      ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
      scheduler.setClock(clock);
      return scheduler;
    }
  }

  static class Job {
    private final Clock clock;
    private final String node;
    private final Map<Long, List<String>> runs;
    private final long lastTick;
    private final CountDownLatch last;

    Job(Clock clock, String node, Map<Long, List<String>> runs, long lastTick, CountDownLatch last) {
      this.clock = clock;
      this.node = node;
      this.runs = runs;
      this.lastTick = lastTick;
      this.last = last;
    }

    @Scheduled(cron = "* * * * * *")
    @ScheduledLock(name = "boot3-nightly", lockAtLeastFor = "600ms")
    public void tick() {
      long tick = clock.millis() / 1000;
      runs.computeIfAbsent(tick, t -> new CopyOnWriteArrayList<>()).add(node);
      if (tick >= lastTick) {
        last.countDown();
      }
    }
  }

  static class Gears {
    @DistributedLock(name = "'gear:' + #p0", maxWait = "PT0.2S")
    public long rebuild(String id, Lease lease) {
      return lease.token();
    }
  }

  /** Compiled without -parameters, as this module is: #id would read null. */
  static class NamedGears {
    @DistributedLock(name = "'gear:' + #id")
    public void rebuild(String id) {}
  }
}

package dev.dlock.examples.nightly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.examples.nightly.NightlyReport.ReportWritten;
import dev.dlock.examples.servers.Postgres;
import dev.dlock.spring.ScheduledLockListener;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Two nodes of the application, each with the report's cron firing every second, on one real
 * PostgreSQL: each tick is written exactly once, by one node or the other.
 */
class NightlyReportTest {
  private static final int TICKS = 5;
  @RegisterExtension
  static final Postgres POSTGRES = new Postgres();

  @Test
  void eachTickRunsOnceAcrossTwoNodes() throws Exception {
    Ticks ticks = new Ticks();
    AtomicInteger skips = new AtomicInteger();
    try (ConfigurableApplicationContext a = node("a", ticks, skips);
         ConfigurableApplicationContext b = node("b", ticks, skips)) {
      assertThat(b.isActive()).isTrue();
      long first = System.currentTimeMillis() / 1000 + 1; // the first tick both nodes fire on
      ticks.await(first + TICKS); // one tick past the window, so a late second run would show

      List<Run> runs = a.getBean(JdbcClient.class)
          .sql("SELECT tick, node, token FROM nightly_report WHERE tick BETWEEN ? AND ? ORDER BY tick, token")
          .params(first, first + TICKS - 1)
          .query(Run.class)
          .list();
      runs.forEach(r -> System.out.printf("tick %d ran on node %s with token %d%n", r.tick(), r.node(), r.token()));
      for (long tick = first; tick < first + TICKS; tick++) {
        long t = tick;
        assertThat(runs.stream().filter(r -> r.tick() == t).map(Run::node).toList())
            .as("the nodes that ran tick %d", tick).hasSize(1);
      }
      for (int i = 1; i < runs.size(); i++) {
        assertThat(runs.get(i).token()).as("the token of tick %d", runs.get(i).tick())
            .isGreaterThan(runs.get(i - 1).token());
      }
      assertThat(skips.get()).as("runs skipped because the lock was held: one a tick at least")
          .isGreaterThanOrEqualTo(TICKS);
    }
  }

  private static ConfigurableApplicationContext node(String name, Ticks ticks, AtomicInteger skips) {
    ScheduledLockListener countSkips = new ScheduledLockListener() {
      @Override
      public void skipped(String lock) {
        skips.incrementAndGet();
      }
    };
    return new SpringApplicationBuilder(NightlyReportApplication.class)
        .listeners(ticks)
        .initializers(ctx -> ctx.getBeanFactory().registerSingleton("countSkips", countSkips))
        .run("--spring.datasource.url=" + POSTGRES.jdbcUrl(),
            "--spring.datasource.username=postgres",
            "--report.node=" + name,
            "--report.cron=* * * * * *",
            "--report.lock-at-least-for=600ms",
            "--spring.main.banner-mode=off",
            "--logging.level.root=warn");
  }

  record Run(long tick, String node, long token) {}

  /** A latch per tick, opened when some node has written that tick's report. */
  static final class Ticks implements ApplicationListener<PayloadApplicationEvent<ReportWritten>> {
    private final Map<Long, CountDownLatch> written = new ConcurrentHashMap<>();

    @Override
    public void onApplicationEvent(PayloadApplicationEvent<ReportWritten> event) {
      latch(event.getPayload().tick()).countDown();
    }

    void await(long tick) throws InterruptedException {
      assertThat(latch(tick).await(30, TimeUnit.SECONDS)).as("tick %d was written", tick).isTrue();
    }

    private CountDownLatch latch(long tick) {
      return written.computeIfAbsent(tick, t -> new CountDownLatch(1));
    }
  }
}

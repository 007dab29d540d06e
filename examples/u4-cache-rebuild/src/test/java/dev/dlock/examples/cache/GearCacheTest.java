package dev.dlock.examples.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.examples.servers.Redis;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two nodes on one real Redis and one database, each consuming approvals of the same gear on three
 * threads at once: the rebuilds of its cache entry never overlap, and the entry counts them all.
 */
class GearCacheTest {
  private static final String GEAR = "gear-7";
  private static final int THREADS_PER_NODE = 3;
  private static final int APPROVALS_PER_THREAD = 5;
  @RegisterExtension
  static final Redis REDIS = new Redis();

  @Test
  void rebuildsOfOneGearNeverOverlap() throws Exception {
    int total = 2 * THREADS_PER_NODE * APPROVALS_PER_THREAD;
    List<Rebuild> rebuilds = new ArrayList<>();
    ExecutorService consumers = Executors.newFixedThreadPool(2 * THREADS_PER_NODE);
    try (ConfigurableApplicationContext a = node("a"); ConfigurableApplicationContext b = node("b")) {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<List<Rebuild>>> results = new ArrayList<>();
      for (ConfigurableApplicationContext node : List.of(a, b)) {
        Approvals approvals = node.getBean(Approvals.class);
        for (int t = 0; t < THREADS_PER_NODE; t++) {
          String consumer = node.getId() + "-" + t;
          results.add(consumers.submit(() -> {
            go.await();
            List<Rebuild> mine = new ArrayList<>();
            for (int i = 0; i < APPROVALS_PER_THREAD; i++) {
              mine.add(approvals.approved(GEAR, consumer + "-" + i));
            }
            return mine;
          }));
        }
      }
      go.countDown();
      for (Future<List<Rebuild>> r : results) {
        rebuilds.addAll(r.get(60, TimeUnit.SECONDS));
      }

      rebuilds.sort(Comparator.comparingLong(Rebuild::token));
      System.out.println("rebuilds per node: " + rebuilds.stream()
          .collect(Collectors.groupingBy(Rebuild::node, Collectors.counting())));
      assertThat(rebuilds).hasSize(total);
      for (int i = 1; i < rebuilds.size(); i++) {
        Rebuild before = rebuilds.get(i - 1);
        Rebuild after = rebuilds.get(i);
        assertThat(after.token()).as("the token after %s", before).isGreaterThan(before.token());
        assertThat(before.end()).as("the end of %s, against the start of %s", before, after)
            .isBeforeOrEqualTo(after.start());
      }
      GearCache.Entry entry = a.getBean(GearCache.class).entry(GEAR);
      assertThat(entry).as("the cache entry of %s", GEAR)
          .isEqualTo(new GearCache.Entry(total, total, rebuilds.get(total - 1).token()));
    } finally {
      consumers.shutdownNow();
    }
  }

  private static ConfigurableApplicationContext node(String name) {
    return new SpringApplicationBuilder(GearCacheApplication.class)
        .run("--spring.application.name=" + name,
            "--dlock.url=" + REDIS.url(),
            "--spring.datasource.url=jdbc:h2:mem:gear-cache;DB_CLOSE_DELAY=-1",
            "--spring.main.banner-mode=off",
            "--logging.level.root=warn");
  }
}

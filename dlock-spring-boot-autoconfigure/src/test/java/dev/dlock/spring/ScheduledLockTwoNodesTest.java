package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Two application contexts, two "nodes", on one real backend, with the same cron firing on both
 * every second: over 20 ticks each tick runs exactly once, also when the second node's clock, and
 * so its schedule, runs 200 ms ahead. The four cases wait on the clock, not the CPU, so they run
 * at once; the class runs alone, since a JVM started beside it can make its scheduler late.
 */
class ScheduledLockTwoNodesTest {
  private static final int TICKS = 20;

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void eachTickRunsOnceOnH2() throws Exception {
    onceEachTick(Runners.h2Url("sched-same"), Duration.ZERO);
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void eachTickRunsOnceOnH2WhenTheSecondNodesClockIsAhead() throws Exception {
    onceEachTick(Runners.h2Url("sched-ahead"), Duration.ofMillis(200));
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void eachTickRunsOnceOnRedis() throws Exception {
    onceEachTick(TestRedis.url(), Duration.ZERO);
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void eachTickRunsOnceOnRedisWhenTheSecondNodesClockIsAhead() throws Exception {
    onceEachTick(TestRedis.url(), Duration.ofMillis(200));
  }

  private static void onceEachTick(String url, Duration shift) throws Exception {
    String lock = "nightly-" + System.nanoTime();
    Runs runs = new Runs();
    node(url, lock, "a", Duration.ZERO, runs).run(a -> node(url, lock, "b", shift, runs).run(b -> {
      assertThat(a).hasNotFailed();
      assertThat(b).hasNotFailed();
      long first = System.currentTimeMillis() / 1000 + 2;
      runs.awaitTick(first + TICKS + 1);
      for (long tick = first; tick < first + TICKS; tick++) {
        assertThat(runs.at(tick)).as("the nodes that ran tick %d", tick).hasSize(1);
      }
      assertThat(runs.nodes()).as("both nodes ran some ticks, or the lock was never contended")
          .isNotEmpty();
    }));
  }

  private static ApplicationContextRunner node(
      String url, String lock, String node, Duration shift, Runs runs) {
    return Runners.runner()
        .withPropertyValues("dlock.url=" + url, "test.lock=" + lock, "test.node=" + node)
        .withBean(Clock.class, () -> Clock.offset(Clock.systemUTC(), shift))
        .withBean(Runs.class, () -> runs)
        .withUserConfiguration(Node.class);
  }

  /** What every tick ran: the tick's second, by the clock of the node that ran it, to the nodes. */
  static final class Runs {
    private final Map<Long, List<String>> byTick = new ConcurrentHashMap<>();
    private final Map<Long, CountDownLatch> waits = new ConcurrentHashMap<>();

    void ran(long tick, String node) {
      byTick.computeIfAbsent(tick, t -> new CopyOnWriteArrayList<>()).add(node);
      waits.computeIfAbsent(tick, t -> new CountDownLatch(1)).countDown();
    }

    List<String> at(long tick) {
      return byTick.getOrDefault(tick, List.of());
    }

    List<String> nodes() {
      return byTick.values().stream().flatMap(List::stream).distinct().toList();
    }

    void awaitTick(long tick) throws InterruptedException {
      long seconds = tick - System.currentTimeMillis() / 1000 + 10;
      assertThat(waits.computeIfAbsent(tick, t -> new CountDownLatch(1)).await(seconds, TimeUnit.SECONDS))
          .as("tick %d ran on some node", tick).isTrue();
    }
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

    @Bean
    Job job(Clock clock, Runs runs, @Value("${test.node}") String node) {
      return new Job(clock, runs, node);
    }
  }

  static class Job {
    private final Clock clock;
    private final Runs runs;
    private final String node;

    Job(Clock clock, Runs runs, String node) {
      this.clock = clock;
      this.runs = runs;
      this.node = node;
    }

    @Scheduled(cron = "* * * * * *")
    @ScheduledLock(name = "${test.lock}", lockAtLeastFor = "PT0.6S")
    public void tick() {
      runs.ran(clock.millis() / 1000, node);
    }
  }
}

package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A node killed with SIGKILL mid-job, a job longer than {@code lockAtMostFor}, and a lease lost
 * mid-run, each on a real backend.
 */
class ScheduledLockFaultsTest {
  private static final Duration LOCK_AT_MOST_FOR = Duration.ofSeconds(2);
  private Process killed;

  @AfterEach
  void killTheOtherNode() {
    if (killed != null) {
      killed.destroyForcibly();
    }
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void aNodeKilledMidJobIsFollowedByTheOtherWithinLockAtMostFor() throws Exception {
    String lock = "killed-" + System.nanoTime();
    killed = new ProcessBuilder(new File(System.getProperty("java.home"), "bin/java").getPath(),
        "-cp", System.getProperty("java.class.path"), KilledNodeMain.class.getName(),
        TestRedis.url(), lock).redirectErrorStream(true).start();
    AtomicLong startedAt = new AtomicLong();
    CountDownLatch started = new CountDownLatch(1);
    Thread reader = new Thread(() -> {
      try (BufferedReader out = new BufferedReader(
          new InputStreamReader(killed.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = out.readLine()) != null; ) {
          if (line.startsWith("RUNNING ")) {
            startedAt.compareAndSet(0, Long.parseLong(line.substring(8).trim()));
            started.countDown();
          }
        }
      } catch (Exception e) {
        // The process was killed: its output ends.
      }
    });
    reader.setDaemon(true);
    reader.start();
    assertThat(started.await(60, TimeUnit.SECONDS)).as("the first node's job started").isTrue();

    // Four skips heard, so the third is surely counted: listeners are told one after another.
    Survivor survivor = new Survivor(4);
    Runners.runner()
        .withPropertyValues("dlock.url=" + TestRedis.url(), "dlock.lease-time=1s", "test.lock=" + lock)
        .withBean(Survivor.class, () -> survivor)
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withUserConfiguration(SurvivorNode.class)
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          assertThat(survivor.skips.await(20, TimeUnit.SECONDS)).isTrue();
          assertThat(System.currentTimeMillis() - startedAt.get())
              .as("the first node's job is still held past lockAtMostFor, its lease renewed")
              .isGreaterThan(LOCK_AT_MOST_FOR.toMillis());
          assertThat(survivor.runs).as("the second node ran while the first held the lock").isEmpty();
          assertThat(ctx.getBean(MeterRegistry.class).counter("dlock.scheduled.skipped", "backend", "redis")
              .count()).isGreaterThanOrEqualTo(3);

          killed.destroyForcibly();
          assertThat(killed.waitFor(10, TimeUnit.SECONDS)).isTrue();
          long killedAt = System.currentTimeMillis();
          assertThat(survivor.ran.await(20, TimeUnit.SECONDS)).as("the second node took over").isTrue();
          assertThat(survivor.runs.get(0) - killedAt)
              .as("ms from the kill to the second node's run")
              .isLessThanOrEqualTo(LOCK_AT_MOST_FOR.toMillis() + 1_500);
        });
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void aJobThatOutlivesAFixedLockAtMostForIsInterruptedAndTheLossCounted() throws Exception {
    Interrupted job = new Interrupted();
    Runners.runner()
        .withPropertyValues("dlock.url=" + TestRedis.url(), "test.lock=fixed-" + System.nanoTime())
        .withBean(Interrupted.class, () -> job)
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withUserConfiguration(InterruptedNode.class)
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          assertThat(job.interrupted.await(20, TimeUnit.SECONDS)).as("the job was interrupted").isTrue();
          assertThat(job.heldFor.get()).as("ms the job ran before its interrupt")
              .isBetween(500L, 3_000L);
          assertThat(ctx.getBean(MeterRegistry.class).counter("dlock.lost", "backend", "redis").count())
              .isGreaterThanOrEqualTo(1);
        });
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void aFailedRunStillHoldsTheLockForLockAtLeastFor() throws Exception {
    Failing job = new Failing();
    String lock = "failing-" + System.nanoTime();
    Runners.runner()
        .withPropertyValues("dlock.url=" + Runners.h2Url("failing"), "test.lock=" + lock)
        .withBean(Failing.class, () -> job)
        .withUserConfiguration(InterruptedNode.class)
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          assertThat(job.ran.await(20, TimeUnit.SECONDS)).isTrue();
          LockClient client = ctx.getBean(LockClient.class);
          long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
          while (System.nanoTime() - end < 0) {
            assertThat(client.inspect(lock)).as("held after the run threw").isPresent();
            Thread.onSpinWait();
          }
        });
  }

  /** A run that fails at once, under a 3 s lockAtLeastFor. */
  static class Failing {
    final CountDownLatch ran = new CountDownLatch(1);

    @Scheduled(fixedDelay = 60_000)
    @ScheduledLock(name = "${test.lock}", lockAtLeastFor = "PT3S")
    public void run() {
      ran.countDown();
      throw new IllegalStateException("the report failed");
    }
  }

  /** The surviving node's record: when it ran, and a latch on its skips. */
  static class Survivor implements ScheduledLockListener {
    final List<Long> runs = new CopyOnWriteArrayList<>();
    final CountDownLatch ran = new CountDownLatch(1);
    final CountDownLatch skips;

    Survivor(int skips) {
      this.skips = new CountDownLatch(skips);
    }

    @Override
    public void skipped(String name) {
      skips.countDown();
    }

    @Scheduled(cron = "* * * * * *")
    @ScheduledLock(name = "${test.lock}", lockAtMostFor = "PT2S")
    public void tick() {
      runs.add(System.currentTimeMillis());
      ran.countDown();
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableScheduling
  static class SurvivorNode {}

  /** A job that waits to be interrupted, on a 1 s lockAtMostFor below the 30 s lease. */
  static class Interrupted {
    final CountDownLatch interrupted = new CountDownLatch(1);
    final AtomicLong heldFor = new AtomicLong();

    @Scheduled(fixedDelay = 60_000)
    @ScheduledLock(name = "${test.lock}", lockAtMostFor = "PT1S")
    public void run() {
      long start = System.nanoTime();
      try {
        new CountDownLatch(1).await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        heldFor.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        interrupted.countDown();
      }
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableScheduling
  static class InterruptedNode {}
}

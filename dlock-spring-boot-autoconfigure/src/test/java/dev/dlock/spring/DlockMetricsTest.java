package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClient;
import dev.dlock.Lease;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class DlockMetricsTest {

  @Test
  void acquireAndReleaseAreMeasured() {
    Runners.runner().withUserConfiguration(Registry.class)
        .withPropertyValues("dlock.url=" + Runners.h2Url("metrics")).run(ctx -> {
          MeterRegistry registry = ctx.getBean(MeterRegistry.class);
          LockClient client = ctx.getBean(LockClient.class);
          try (Lease lease = client.lock("job").acquire(Duration.ofSeconds(5))) {
            assertThat(registry.get("dlock.held.count").tag("backend", "jdbc").gauge().value())
                .isEqualTo(1.0);
            Thread.sleep(20);
          }
          assertThat(registry.get("dlock.acquire").tags("backend", "jdbc", "outcome", "acquired")
              .timer().count()).isEqualTo(1);
          assertThat(registry.get("dlock.held").tag("backend", "jdbc").timer()
              .totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(20);
          assertThat(registry.get("dlock.held.count").gauge().value()).isZero();
          assertThat(registry.find("dlock.acquire").tagKeys("name").timer()).isNull();
        });
  }

  @Test
  void aWaitThatRunsOutIsATimeoutOfTheAcquireTimerAndCounted() {
    Runners.runner().withUserConfiguration(Registry.class)
        .withPropertyValues("dlock.url=mem:metrics-timeout").run(ctx -> {
          MeterRegistry registry = ctx.getBean(MeterRegistry.class);
          try (LockClient holder = LockClient.connect("mem:metrics-timeout");
              Lease held = holder.lock("job").acquire()) {
            LockClient client = ctx.getBean(LockClient.class);
            assertThat(client.lock("job").tryAcquire(Duration.ofMillis(20))).isEmpty();
            assertThat(client.lock("job").tryLock()).isFalse();
          }
          Timer timeouts = registry.get("dlock.acquire")
              .tags("backend", "mem", "outcome", "timeout").timer();
          assertThat(timeouts.count()).isEqualTo(2);
          assertThat(timeouts.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(20);
          assertThat(registry.get("dlock.timeouts").tag("backend", "mem").counter().count())
              .isEqualTo(2);
          assertThat(registry.find("dlock.acquire").tag("outcome", "acquired").timer()).isNull();
        });
  }

  @Test
  void theNameTagIsOptIn() {
    Runners.runner().withUserConfiguration(Registry.class)
        .withPropertyValues("dlock.url=mem:", "dlock.metrics.name-tag=true").run(ctx -> {
          ctx.getBean(LockClient.class).lock("job").acquire(Duration.ofSeconds(1)).close();
          assertThat(registry(ctx.getBean(MeterRegistry.class)).get("dlock.acquire")
              .tags("backend", "mem", "name", "job").timer().count()).isEqualTo(1);
        });
  }

  @Test
  void noMetricsWithoutARegistry() {
    Runners.runner().withPropertyValues("dlock.url=mem:")
        .run(ctx -> assertThat(ctx).doesNotHaveBean(DlockMetrics.class));
  }

  private static MeterRegistry registry(MeterRegistry r) {
    return r;
  }

  @Configuration(proxyBeanMethods = false)
  static class Registry {
    @Bean
    SimpleMeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }
}

package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testkit.FreePorts;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import redis.embedded.RedisServer;

class DlockHealthTest {
  private static final String PASSWORD = "s3cret-pw";

  @Test
  void upOnH2() {
    Runners.runner().withPropertyValues("dlock.url=" + Runners.h2Url("health")).run(ctx -> {
      Health health = ctx.getBean(DlockHealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.UP);
    });
  }

  @Test
  void downWhenRedisGoesAwayNamingTheHostButNoPassword() throws Exception {
    int port = freePort();
    RedisServer server = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
        .setting("requirepass " + PASSWORD).setting("save \"\"").setting("appendonly no").build();
    server.start();
    try {
      Runners.runner()
          .withPropertyValues("dlock.url=redis://:" + PASSWORD + "@127.0.0.1:" + port + "?timeout=1s")
          .run(ctx -> {
            DlockHealthIndicator indicator = ctx.getBean(DlockHealthIndicator.class);
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
            server.stop();
            Health health = indicator.health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(String.valueOf(health.getDetails().get("error")))
                .contains("127.0.0.1:" + port).doesNotContain(PASSWORD);
          });
    } finally {
      if (server.isActive()) {
        server.stop();
      }
    }
  }

  @Test
  void anUnreachableUrlFailsStartNamingTheHostButNoPassword() throws Exception {
    int port = freePort();
    long start = System.nanoTime();
    Runners.runner()
        .withPropertyValues("dlock.url=redis://:" + PASSWORD + "@127.0.0.1:" + port)
        .run(ctx -> {
          assertThat(ctx).hasFailed();
          Throwable t = ctx.getStartupFailure();
          StringBuilder messages = new StringBuilder();
          for (; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
          }
          assertThat(messages.toString()).contains("127.0.0.1:" + port).doesNotContain(PASSWORD);
        });
    assertThat((System.nanoTime() - start) / 1_000_000).as("ms to fail").isLessThan(10_000);
  }

  @Test
  void noIndicatorWithoutAClient() {
    Runners.runner().run(ctx -> assertThat(ctx).doesNotHaveBean(DlockHealthIndicator.class));
  }

  static int freePort() {
    return FreePorts.next();
  }
}

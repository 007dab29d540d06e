package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A redis-server restarted without persistence forgets every lease, and its token counters; the
 * holders must hear of it, and tokens must not go backwards.
 */
class RedisRestartTest {

  @Test
  void aHolderLearnsOfTheLossWithinOneRenewalPeriodAndTokensKeepRisingAfterARestart() throws Exception {
    Duration lease = Duration.ofSeconds(6);
    Duration period = lease.dividedBy(3);
    try (RedisTestServer server = RedisTestServer.start()) {
      Counter counter = new Counter();
      try (LockClient client = LockClient.builder().url(server.url()).leaseTime(lease).listener(counter).build()) {
        long highest = 0;
        for (int i = 0; i < 3; i++) {
          try (Lease earlier = client.lock("restart").acquire()) {
            highest = Math.max(highest, earlier.token());
          }
        }
        Lease held = client.lock("restart").acquire();
        highest = Math.max(highest, held.token());
        assertThat(counter.await("renewed", 1, lease)).isTrue();
        server.restart();
        long restarted = System.nanoTime();
        LeaseLostException reason = held.lost().toCompletableFuture()
            .get(period.plusSeconds(2).toMillis(), TimeUnit.MILLISECONDS);
        Duration took = Duration.ofNanos(System.nanoTime() - restarted);
        assertThat(took).as("time from the restart to the loss signal").isLessThan(period.plusMillis(1500));
        assertThat(reason).hasMessageContaining("restart").hasMessageContaining("no longer held");
        assertThat(held.isValid()).isFalse();
        assertThatThrownBy(held::close).isInstanceOf(LeaseLostException.class);
        // The scripts are loaded again on NOSCRIPT, and the lock is free. The counter is gone too,
        // yet the next token is above every earlier one: the server's clock has moved on.
        try (Lease again = client.lock("restart").acquire(Duration.ofSeconds(5))) {
          assertThat(again.token()).as("the first token after the restart").isGreaterThan(highest);
        }
      }
    }
  }
}

package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each lab Redis scheme shows the flaw the articles name, in-process and on a real server. */
class RedisSchemesTest {
  static final Duration LONG = Duration.ofSeconds(10);
  static final Duration SHORT = Duration.ofMillis(100);
  @TempDir
  static Path dir;
  static RedisProcess redis;
  static RedisClient client;
  static RedisCommands<String, String> admin;

  @BeforeAll
  static void start() {
    redis = RedisProcess.start(dir, RedisProcess.Persistence.NONE);
    client = RedisClient.create(redis.url());
    admin = client.connect().sync();
  }

  @AfterAll
  static void stop() {
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    redis.close();
  }

  @Test
  void s4HolderStoppedInTheGapLeavesAKeyThatNeverExpires() throws Exception {
    CountDownLatch inGap = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    try (var w1 = new SetnxThenExpire(redis.url(), "w1", () -> {
          inGap.countDown();
          await(resume);
        });
        var w2 = new SetnxThenExpire(redis.url(), "w2", () -> {})) {
      CompletableFuture<Scheme.Held> holder = CompletableFuture.supplyAsync(() -> call(() -> w1.acquire("s4", SHORT, LONG)));
      assertThat(inGap.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(admin.get("lab:s4")).isEqualTo("w1:1");
      assertThat(admin.pttl("lab:s4")).isEqualTo(-1L);
      Thread.sleep(SHORT.toMillis() * 3); // three leases pass: the key is still there
      assertThat(w2.acquire("s4", SHORT, Duration.ofMillis(50))).isNull();
      resume.countDown();
      assertThat(holder.get(10, TimeUnit.SECONDS).release()).isEqualTo("w1");
    }
  }

  @Test
  void s5ClientWhoseClockRunsAheadTakesALiveLockAndTheReleaseCannotTellWhose() throws Exception {
    try (var w1 = new ClockValueLock(redis.url(), "w1", Duration.ZERO);
        var w2 = new ClockValueLock(redis.url(), "w2", Duration.ofSeconds(20))) {
      Scheme.Held first = w1.acquire("s5", LONG, Duration.ZERO);
      assertThat(first).isNotNull();
      Scheme.Held second = w2.acquire("s5", LONG, Duration.ZERO);
      assertThat(second).as("w2's clock says w1's 10 s lease is over").isNotNull();
      assertThat(first.release()).as("w1 deletes w2's value, not knowing whose").isEqualTo("?");
      assertThat(admin.exists("lab:s5")).isZero();
    }
  }

  @Test
  void s6HolderPastItsExpiryFreesTheNextHoldersLock() throws Exception {
    try (var w1 = new LuaSetnxExpire(redis.url(), "w1"); var w2 = new LuaSetnxExpire(redis.url(), "w2")) {
      expiredHolderFreesNext(w1, w2, "s6");
    }
  }

  @Test
  void s7HolderPastItsExpiryFreesTheNextHoldersLock() throws Exception {
    try (var w1 = new SetNxPx(redis.url(), "w1"); var w2 = new SetNxPx(redis.url(), "w2")) {
      expiredHolderFreesNext(w1, w2, "s7");
    }
  }

  private static void expiredHolderFreesNext(Scheme w1, Scheme w2, String lock) throws Exception {
    Scheme.Held first = w1.acquire(lock, SHORT, Duration.ZERO);
    assertThat(first).isNotNull();
    assertThat(w2.acquire(lock, LONG, Duration.ZERO)).as("taken while w1's lease lasts").isNull();
    Scheme.Held second = Poll.until(LONG, () -> Objects.requireNonNull(
        w2.acquire(lock, LONG, Duration.ZERO), "w1's lease has not run out"));
    assertThat(second).isNotNull();
    assertThat(admin.pttl("lab:" + lock)).isPositive();
    assertThat(first.release()).isEqualTo("w2");
    assertThat(admin.exists("lab:" + lock)).isZero();
    assertThat(second.release()).isEmpty();
  }

  @Test
  void s8WrongGetThenDelFreesTheNextOwnerWhenTheExpiryFallsBetween() throws Exception {
    try (var w2 = new GetThenDel(redis.url(), "w2")) {
      Scheme.Held[] second = new Scheme.Held[1];
      try (var w1 = new GetThenDel(redis.url(), "w1", () -> {
        second[0] = call(() -> Poll.until(LONG, () -> Objects.requireNonNull(
            w2.acquire("s8", LONG, Duration.ZERO), "w1's key has not expired")));
      })) {
        Scheme.Held first = w1.acquire("s8", SHORT, Duration.ZERO);
        assertThat(first.release()).isEqualTo("w2");
        assertThat(second[0]).isNotNull();
        assertThat(admin.exists("lab:s8")).isZero();
      }
    }
  }

  @Test
  void s8WrongReleasesItsOwnLockWhenNothingFallsBetween() throws Exception {
    try (var w1 = new GetThenDel(redis.url(), "w1")) {
      assertThat(w1.acquire("s8-own", LONG, Duration.ZERO).release()).isEqualTo("w1");
      Scheme.Held expired = w1.acquire("s8-own", SHORT, Duration.ZERO);
      Poll.until(LONG, () -> {
        if (admin.exists("lab:s8-own") != 0) {
          throw new IllegalStateException("the key has not expired");
        }
        return null;
      });
      assertThat(expired.release()).isEmpty();
    }
  }

  @Test
  void libraryLockOnRedisGivesRisingTokensAndReleasesItsOwn() throws Exception {
    try (Scheme w1 = Schemes.open("S8", redis.url(), "w1", LONG, Duration.ZERO, () -> {}, () -> {});
        Scheme w2 = Schemes.open("S8", redis.url(), "w2", LONG, Duration.ZERO, () -> {}, () -> {})) {
      assertThat(w1.fenced()).isTrue();
      long last = -1;
      for (int i = 0; i < 3; i++) {
        Scheme.Held a = w1.acquire("lib", LONG, LONG);
        assertThat(a.token()).isGreaterThan(last);
        assertThat(w2.acquire("lib", LONG, Duration.ZERO)).isNull();
        assertThat(a.lost()).isFalse();
        assertThat(a.release()).isEqualTo("w1");
        Scheme.Held b = w2.acquire("lib", LONG, LONG);
        assertThat(b.token()).isGreaterThan(a.token());
        assertThat(b.release()).isEqualTo("w2");
        last = b.token();
      }
    }
  }

  interface Call<T> {
    T call() throws Exception;
  }

  static <T> T call(Call<T> c) {
    try {
      return c.call();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static void await(CountDownLatch latch) {
    call(() -> latch.await(30, TimeUnit.SECONDS));
  }
}

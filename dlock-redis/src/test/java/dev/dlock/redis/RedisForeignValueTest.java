package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.BackendUnavailableException;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A key of a lock that holds what dlock did not write there, on a real redis-server: every
 * operation on it fails with an error naming the key and what it holds, never reports the lock
 * free or held, and leaves the key as it found it.
 */
class RedisForeignValueTest {
  private static final String PREFIX = "foreign:";

  @RegisterExtension
  static final RedisTestServer server = RedisTestServer.perClass();
  @RegisterExtension
  final TestClients clients = new TestClients();

  /** The foreign values written over a lock key, and how the error describes each. */
  enum Shape {
    STRING((c, k) -> c.set(k, "garbage"), "a string of 7 bytes 'garbage'"),
    HASH((c, k) -> c.hset(k, "owner", "someone"), "a hash of 1 field"),
    LIST((c, k) -> c.rpush(k, "a", "b"), "a list of 2 elements");

    final BiConsumer<RedisCommands<String, String>, String> write;
    final String described;

    Shape(BiConsumer<RedisCommands<String, String>, String> write, String described) {
      this.write = write;
      this.described = described;
    }

    /** Replaces {@code key}, whatever it held, by this shape's value; returns what is stored. */
    Object put(String key) {
      RedisCommands<String, String> c = server.admin().sync();
      c.del(key);
      write.accept(c, key);
      return stored(key);
    }
  }

  /** Each test's foreign values go with it, so that no other test lists them. */
  @AfterEach
  void deleteEveryKey() {
    List<String> left = server.admin().sync().keys(PREFIX + "*");
    if (!left.isEmpty()) {
      server.admin().sync().del(left.toArray(String[]::new));
    }
  }

  private LockClient client(Duration lease) {
    return clients.add(LockClient.builder().url(server.url() + "?prefix=" + PREFIX).leaseTime(lease).build());
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void anAcquireFailsNamingTheKeyWhetherItWaitsOrNot(Shape shape) {
    String name = "acquire-" + shape;
    String key = lockKey(name);
    Object stored = shape.put(key);
    LockClient c = client(Duration.ofSeconds(30));
    assertForeign(() -> c.lock(name).tryAcquire(), key, shape);
    long start = System.nanoTime();
    assertForeign(() -> c.lock(name).acquire(Duration.ofSeconds(10)), key, shape);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("a waiting acquire fails at once, not by timing out")
        .isLessThan(Duration.ofSeconds(5));
    assertThat(stored(key)).isEqualTo(stored);
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void inspectFailsNamingTheKeyRatherThanCallTheLockFree(Shape shape) {
    String name = "inspect-" + shape;
    String key = lockKey(name);
    Object stored = shape.put(key);
    LockClient c = client(Duration.ofSeconds(30));
    assertForeign(() -> c.inspect(name), key, shape);
    assertForeign(c::inspectAll, key, shape);
    assertThat(stored(key)).isEqualTo(stored);
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void aReleaseFailsNamingTheKeyAndLeavesItAlone(Shape shape) throws Exception {
    String name = "release-" + shape;
    String key = lockKey(name);
    Lease held = client(Duration.ofSeconds(30)).lock(name).acquire();
    Object stored = shape.put(key);
    assertForeign(held::close, key, shape);
    assertThat(stored(key)).isEqualTo(stored);
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void aRenewalCountsTheGrantLostLeavesTheKeyAloneAndRenewsTheOthers(Shape shape) throws Exception {
    String name = "renew-" + shape;
    String key = lockKey(name);
    Duration lease = Duration.ofMillis(900);
    Counter events = new Counter();
    LockClient c = clients.add(LockClient.builder().url(server.url() + "?prefix=" + PREFIX)
        .leaseTime(lease).listener(events).build());
    Lease overwritten = c.lock(name).acquire();
    Lease other = c.lock(name + "-other").acquire();
    Object stored = shape.put(key);
    assertThat(overwritten.lost().toCompletableFuture().get(5, TimeUnit.SECONDS))
        .as("the loss of the grant whose key was overwritten").hasMessageContaining(name);
    assertThat(overwritten.isValid()).isFalse();
    int renewed = events.get("renewed");
    assertThat(events.await("renewed", renewed + 2, Duration.ofSeconds(5)))
        .as("the other lease, renewed in later rounds").isTrue();
    assertThat(other.isValid()).isTrue();
    assertThat(stored(key)).isEqualTo(stored);
    other.close();
  }

  @Test
  void everyOtherKeyOfEveryKindIsCheckedToo() {
    LockClient c = client(Duration.ofSeconds(30));
    Keys keys = new Keys(PREFIX);
    record Case(String name, Function<String, byte[]> key, Function<String, Object> take) {}
    List<Case> cases = List.of(
        new Case("counter", n -> keys.of(n)[1], n -> c.lock(n).tryAcquire()),
        // The queue's keys are judged when a path touches them: a wait behind another holder.
        new Case("queue", n -> keys.of(n)[2], n -> waitBehind(n, c)),
        new Case("fair", n -> keys.fair(n)[0], n -> c.fairLock(n).tryAcquire()),
        new Case("write", n -> keys.readWrite(n)[0], n -> c.readWriteLock(n).readLock().tryAcquire()),
        new Case("readers", n -> keys.readWrite(n)[1], n -> c.readWriteLock(n).writeLock().tryAcquire()),
        new Case("permits", n -> keys.semaphore(n)[1], n -> c.semaphore(n, 2).tryAcquire()));
    for (Case k : cases) {
      String name = "kind-" + k.name();
      String key = new String(k.key().apply(name), StandardCharsets.UTF_8);
      Object stored = Shape.STRING.put(key);
      assertForeign(() -> k.take().apply(name), key, Shape.STRING);
      assertThat(stored(key)).isEqualTo(stored);
    }
    // The semaphore's own hash, with a field it never writes.
    String key = new String(keys.semaphore("kind-meta")[1], StandardCharsets.UTF_8);
    server.admin().sync().hset(key, "permits", "2");
    server.admin().sync().hset(key, "colour", "blue");
    assertThatThrownBy(() -> c.semaphore("kind-meta", 2).tryAcquire()).isInstanceOf(LockException.class)
        .hasMessageContaining(key).hasMessageContaining("a hash of 2 fields");
  }

  /** Has the lock held by another client, then waits for it with {@code c}. */
  private Object waitBehind(String name, LockClient c) {
    try {
      client(Duration.ofSeconds(30)).lock(name).acquire();
      return c.lock(name).tryAcquire(Duration.ofMillis(100));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A release that hands the lock to a waiter draws a token: it judges the counter before writing. */
  @Test
  void aReleaseThatWouldHandOverFailsNamingAForeignCounter() throws Exception {
    String name = "hand-over-counter";
    Lease held = client(Duration.ofSeconds(30)).lock(name).acquire();
    Counter events = new Counter();
    LockClient waiter = clients.add(LockClient.builder().url(server.url() + "?prefix=" + PREFIX)
        .listener(events).build());
    CompletableFuture.runAsync(() -> {
      try {
        waiter.lock(name).tryAcquire(Duration.ofSeconds(30));
      } catch (InterruptedException | RuntimeException e) {
        // the client closes at the end of the test
      }
    });
    assertThat(events.await("waited", 1, Duration.ofSeconds(10))).as("the waiter queued").isTrue();
    String key = new String(new Keys(PREFIX).of(name)[1], StandardCharsets.UTF_8);
    Object stored = Shape.STRING.put(key);
    assertForeign(held::close, key, Shape.STRING);
    assertThat(stored(key)).isEqualTo(stored);
  }

  @Test
  void anUncontendedLockLeavesAForeignQueueKeyAlone() {
    LockClient c = client(Duration.ofSeconds(30));
    String name = "untouched-queue";
    String key = new String(new Keys(PREFIX).of(name)[2], StandardCharsets.UTF_8);
    Object stored = Shape.STRING.put(key);
    // Six commands a cycle on the server come from not reading keys a path does not touch.
    assertThat(c.lock(name).tryAcquire()).hasValueSatisfying(Lease::close);
    assertThat(stored(key)).isEqualTo(stored);
  }

  private static void assertForeign(ThrowingCallable op, String key, Shape shape) {
    assertThatThrownBy(op).isInstanceOf(LockException.class)
        .isNotInstanceOf(BackendUnavailableException.class)
        .hasMessageContaining("redis key '" + key + "' holds " + shape.described)
        .hasMessageContaining("which dlock did not write")
        .hasMessageContaining("127.0.0.1:" + server.port())
        .hasCauseInstanceOf(RedisCommandExecutionException.class);
  }

  private static String lockKey(String name) {
    return new String(new Keys(PREFIX).lock(name), StandardCharsets.UTF_8);
  }

  /** What {@code key} holds, read whatever its type, to show it unchanged. */
  private static Object stored(String key) {
    RedisCommands<String, String> c = server.admin().sync();
    return switch (c.type(key)) {
      case "string" -> c.get(key) + " ttl " + c.ttl(key);
      case "hash" -> c.hgetall(key) + " ttl " + c.ttl(key);
      case "list" -> c.lrange(key, 0, -1) + " ttl " + c.ttl(key);
      default -> c.type(key);
    };
  }
}

package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.DistributedLock;
import dev.dlock.DistributedReadWriteLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Who a read-write release wakes, downgrades past a queued writer, and the cost, on a real redis-server. */
class RedisReadWriteLockTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  @RegisterExtension
  static final RedisTestServer server = RedisTestServer.perClass();
  @RegisterExtension
  final TestClients clients = new TestClients();
  private final ExecutorService threads = clients.threads();

  /** A client that never polls faster than the backend's hint, so wake-ups are what moves it. */
  private LockClient client(Counter counter) {
    LockClient c = LockClient.builder().url(server.url()).listener(counter)
        .maxPollInterval(Duration.ofHours(1)).build();
    clients.add(c);
    return c;
  }

  @Test
  void aWriteReleasePublishesOncePerWaitingReaderClientAndNotToTheQueuedWriter() throws Exception {
    String name = "readers-" + System.nanoTime();
    Lease writing = client(new Counter()).readWriteLock(name).writeLock().acquire();
    int readers = 4;
    CountDownLatch allIn = new CountDownLatch(readers);
    CountDownLatch measured = new CountDownLatch(1);
    List<Counter> readerEvents = new ArrayList<>();
    List<Future<Long>> reads = new ArrayList<>();
    for (int i = 0; i < readers; i++) {
      Counter events = new Counter();
      readerEvents.add(events);
      DistributedLock read = client(events).readWriteLock(name).readLock();
      reads.add(threads.submit(() -> {
        try (Lease lease = read.acquire(WAIT)) {
          allIn.countDown();
          measured.await();
          return lease.token();
        }
      }));
      assertThat(events.await("waited", 1, Duration.ofSeconds(10))).as("reader %d queued", i).isTrue();
    }
    Counter writerEvents = new Counter();
    DistributedLock write = client(writerEvents).readWriteLock(name).writeLock();
    Future<Long> written = clients.tokenOf(write, WAIT);
    assertThat(writerEvents.await("waited", 1, Duration.ofSeconds(10))).isTrue();
    Counter lateEvents = new Counter();
    DistributedLock lateRead = client(lateEvents).readWriteLock(name).readLock();
    Future<Long> lateToken = clients.tokenOf(lateRead, WAIT);
    assertThat(lateEvents.await("waited", 1, Duration.ofSeconds(10))).isTrue();

    Map<String, Long> before = server.commandCalls();
    writing.close();
    assertThat(allIn.await(10, TimeUnit.SECONDS)).as("the queued readers all read at once").isTrue();
    assertThat(server.callsSince(before).get("publish")).as("PUBLISH calls of the write release")
        .isEqualTo(readers);
    // At most one each: a reader's own periodic retry may beat its wake-up to the grant.
    assertThat(readerEvents).allSatisfy(e -> assertThat(e.get("woken")).isLessThanOrEqualTo(1));
    assertThat(written).as("the writer while four read").isNotDone();
    assertThat(writerEvents.get("woken")).as("wake-ups of the writer queued after the readers").isZero();
    assertThat(lateEvents.get("woken")).as("wake-ups of the reader queued after the writer").isZero();

    before = server.commandCalls();
    measured.countDown();
    long last = 0;
    for (Future<Long> r : reads) {
      last = Math.max(last, r.get(10, TimeUnit.SECONDS));
    }
    long writeToken = written.get(10, TimeUnit.SECONDS);
    assertThat(writeToken).isGreaterThan(last);
    assertThat(lateToken.get(10, TimeUnit.SECONDS)).isGreaterThan(writeToken);
    // The last reader out wakes the writer; the writer's release wakes the late reader.
    assertThat(server.callsSince(before).get("publish")).isEqualTo(2L);
    assertThat(writerEvents.get("woken")).isLessThanOrEqualTo(1);
    assertThat(lateEvents.get("woken")).isLessThanOrEqualTo(1);
  }

  @Test
  void aDowngradeIsGrantedPastAQueuedWriterAndAnUpgradeIsRefused() throws Exception {
    String name = "downgrade-" + System.nanoTime();
    DistributedReadWriteLock mine = client(new Counter()).readWriteLock(name);
    Lease write = mine.writeLock().acquire();
    Counter writerEvents = new Counter();
    DistributedLock other = client(writerEvents).readWriteLock(name).writeLock();
    Future<Long> written = clients.tokenOf(other, WAIT);
    assertThat(writerEvents.await("waited", 1, Duration.ofSeconds(10))).isTrue();
    Lease read = mine.readLock().tryAcquire().orElseThrow(
        () -> new AssertionError("the writer's own read was refused behind the queued writer"));
    write.close();
    assertThat(written).as("the queued writer while the downgraded reader reads").isNotDone();
    assertThatThrownBy(() -> mine.writeLock().tryAcquire(Duration.ofSeconds(5)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("upgrad");
    read.close();
    assertThat(written.get(10, TimeUnit.SECONDS)).isGreaterThan(read.token());
    assertThat(writerEvents.get("woken")).isEqualTo(1);
  }

  @Test
  void aWriterThatGivesUpLetsInTheReadersItHeldBack() throws Exception {
    String name = "gives-up-" + System.nanoTime();
    Lease reading = client(new Counter()).readWriteLock(name).readLock().acquire();
    Counter writerEvents = new Counter();
    DistributedLock write = client(writerEvents).readWriteLock(name).writeLock();
    CountDownLatch giveUp = new CountDownLatch(1);
    Future<Boolean> gaveUp = threads.submit(() -> {
      // Interrupted once the late reader queues behind it.
      try (Lease lease = write.acquire(WAIT)) {
        return false;
      } catch (InterruptedException e) {
        return true;
      } finally {
        giveUp.countDown();
      }
    });
    assertThat(writerEvents.await("waited", 1, Duration.ofSeconds(10))).isTrue();
    Counter lateEvents = new Counter();
    DistributedLock lateRead = client(lateEvents).readWriteLock(name).readLock();
    Future<Long> lateToken = clients.tokenOf(lateRead, WAIT);
    assertThat(lateEvents.await("waited", 1, Duration.ofSeconds(10))).isTrue();
    gaveUp.cancel(true);
    assertThat(giveUp.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(lateToken.get(10, TimeUnit.SECONDS)).as("the reader beside the first one")
        .isGreaterThan(reading.token());
    assertThat(lateEvents.await("woken", 1, Duration.ofSeconds(5))).as("woken by the writer's cancel")
        .isTrue();
    reading.close();
  }

  @Test
  void uncontendedCyclesSendTwoCommandsEach() throws Exception {
    DistributedReadWriteLock rw = client(new Counter()).readWriteLock("cost-" + System.nanoTime());
    rw.writeLock().acquire().close();
    rw.readLock().acquire().close();
    int cycles = 50;
    long n = cycles;
    Map<String, Long> before = server.commandCalls();
    for (int i = 0; i < cycles; i++) {
      rw.writeLock().acquire().close();
    }
    // Each script first checks its seven keys (two GETs, five TYPEs); the acquire then draws the
    // token (GET, TIME, SET); each grant and each release delete the owner's pushed-grant mark.
    assertThat(server.callsSince(before)).as("commands run by the server per %d write cycles", cycles)
        .containsExactlyInAnyOrderEntriesOf(Map.of("evalsha", 2 * n, "get", 7 * n, "type", 10 * n,
            "exists", 3 * n, "set", 2 * n, "time", n, "del", n, "hdel", 2 * n));
    before = server.commandCalls();
    for (int i = 0; i < cycles; i++) {
      rw.readLock().acquire().close();
    }
    assertThat(server.callsSince(before)).as("commands run by the server per %d read cycles", cycles)
        .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(Map.entry("evalsha", 2 * n),
            Map.entry("get", 6 * n), Map.entry("type", 10 * n), Map.entry("exists", 2 * n),
            Map.entry("time", 2 * n), Map.entry("zadd", n), Map.entry("pttl", n), Map.entry("pexpire", n),
            Map.entry("set", n), Map.entry("zscore", n), Map.entry("zrem", n), Map.entry("hdel", 2 * n)));
  }
}

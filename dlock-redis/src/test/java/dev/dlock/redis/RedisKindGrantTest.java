package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import dev.dlock.testkit.RecordingContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A release of a fair, read-write or semaphore lock grants the next waiters itself and pushes each
 * its token, so a waiter takes its grant without asking again; a grant pushed to a client that
 * no longer waits for it is passed on. On a real redis-server, through backends without an engine,
 * so that no renewal or retry sends anything the counts do not expect.
 */
class RedisKindGrantTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration WAIT = Duration.ofSeconds(5);
  @RegisterExtension
  static final RedisTestServer server = RedisTestServer.perClass();
  private final List<RedisBackend> backends = new ArrayList<>();

  private record Client(RedisBackend backend, RecordingContext context) {}

  @AfterEach
  void close() {
    backends.forEach(RedisBackend::close);
  }

  private Client client(String id) {
    RedisBackend b = RedisBackend.open(RedisUrl.parse(server.url()), RedisBackend.WAITER_TIMEOUT);
    RecordingContext context = new RecordingContext(id);
    b.start(context);
    backends.add(b);
    return new Client(b, context);
  }

  private static LockRequest request(String name, LockKind kind, String owner) {
    return new LockRequest(name, kind, kind == LockKind.PERMIT ? 2 : 1, owner, LEASE, true, null);
  }

  private static Grant hold(Client c, String name, LockKind kind, String owner) {
    Attempt a = c.backend().tryAcquire(request(name, kind, owner));
    assertThat(a.isGranted()).as("%s asks for %s lock '%s'", owner, kind, name).isTrue();
    return new Grant(name, owner, a.token(), kind);
  }

  private static void queue(Client c, String name, LockKind kind, String owner) {
    assertThat(c.backend().tryAcquire(request(name, kind, owner)).isGranted())
        .as("%s asks for %s lock '%s' and queues", owner, kind, name).isFalse();
  }

  /** The grant a release pushed to {@code owner}, taken with no command sent to the server. */
  private static long takePushed(Client c, String name, LockKind kind, String owner) throws Exception {
    assertThat(c.context().nextWakeUp(WAIT)).as("%s told of its grant", owner).isEqualTo(name);
    Map<String, Long> before = server.commandCalls();
    Attempt a = c.backend().tryAcquire(request(name, kind, owner));
    assertThat(server.callsSince(before)).as("commands sent as %s takes its pushed grant", owner).isEmpty();
    assertThat(a.isGranted()).isTrue();
    assertThat(a.validity()).as("a pushed grant's validity, counted from the last try")
        .hasValueSatisfying(v -> assertThat(v).isLessThanOrEqualTo(RedisBackend.WAITER_TIMEOUT));
    return a.token();
  }

  private static String key(byte[] key) {
    return new String(key, StandardCharsets.UTF_8);
  }

  @Test
  void aFairReleaseGrantsTheHeadOfTheQueue() throws Exception {
    String name = "fair-" + System.nanoTime();
    Client holder = client("fair-holder");
    Grant held = hold(holder, name, LockKind.FAIR, "fair-holder:1");
    Client first = client("fair-first");
    Client second = client("fair-second");
    queue(first, name, LockKind.FAIR, "fair-first:1");
    queue(second, name, LockKind.FAIR, "fair-second:1");
    assertThat(holder.backend().release(held)).isTrue();
    long one = takePushed(first, name, LockKind.FAIR, "fair-first:1");
    assertThat(one).isGreaterThan(held.token());
    assertThat(second.context().pendingWakeUps()).as("wake-ups of the second in the queue").isEmpty();
    assertThat(first.backend().release(new Grant(name, "fair-first:1", one, LockKind.FAIR))).isTrue();
    assertThat(takePushed(second, name, LockKind.FAIR, "fair-second:1")).isGreaterThan(one);
  }

  @Test
  void aWriteReleaseGrantsTheReadersBeforeTheNextWriterAsOneGroup() throws Exception {
    String name = "rw-" + System.nanoTime();
    Client writer = client("rw-writer");
    Grant writing = hold(writer, name, LockKind.WRITE, "rw-writer:1");
    Client a = client("rw-a");
    Client b = client("rw-b");
    Client nextWriter = client("rw-next");
    Client late = client("rw-late");
    queue(a, name, LockKind.READ, "rw-a:1");
    queue(a, name, LockKind.READ, "rw-a:2");
    queue(b, name, LockKind.READ, "rw-b:1");
    queue(nextWriter, name, LockKind.WRITE, "rw-next:1");
    queue(late, name, LockKind.READ, "rw-late:1");
    assertThat(writer.backend().release(writing)).isTrue();
    List<Grant> reads = new ArrayList<>();
    for (String owner : List.of("rw-a:1", "rw-a:2", "rw-b:1")) {
      Client c = owner.startsWith("rw-a") ? a : b;
      long token = takePushed(c, name, LockKind.READ, owner);
      assertThat(token).isGreaterThan(writing.token());
      reads.add(new Grant(name, owner, token, LockKind.READ));
    }
    assertThat(nextWriter.context().pendingWakeUps()).as("wake-ups of the writer behind them").isEmpty();
    assertThat(late.context().pendingWakeUps()).as("wake-ups of the reader behind that writer").isEmpty();
    long lastRead = 0;
    for (Grant r : reads) {
      assertThat(nextWriter.context().pendingWakeUps()).as("wake-ups of the writer while some read").isEmpty();
      assertThat((r.owner().startsWith("rw-a") ? a : b).backend().release(r)).isTrue();
      lastRead = Math.max(lastRead, r.token());
    }
    long written = takePushed(nextWriter, name, LockKind.WRITE, "rw-next:1");
    assertThat(written).isGreaterThan(lastRead);
    assertThat(nextWriter.backend().release(new Grant(name, "rw-next:1", written, LockKind.WRITE))).isTrue();
    assertThat(takePushed(late, name, LockKind.READ, "rw-late:1")).isGreaterThan(written);
  }

  @Test
  void aReleaseGrantsAsManyWaitersAsPermitsAreFreeInQueueOrder() throws Exception {
    String name = "sem-" + System.nanoTime();
    Client holder = client("sem-holder");
    Grant one = hold(holder, name, LockKind.PERMIT, "sem-holder:1");
    hold(holder, name, LockKind.PERMIT, "sem-holder:2");
    List<Client> waiters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Client w = client("sem-w" + i);
      queue(w, name, LockKind.PERMIT, "sem-w" + i + ":1");
      waiters.add(w);
    }
    // The second permit's lease has run out (its holder died): the release frees two permits.
    server.admin().sync().zadd(key(new Keys(RedisUrl.DEFAULT_PREFIX).semaphore(name)[0]), 1, "sem-holder:2");
    assertThat(holder.backend().release(one)).isTrue();
    long first = takePushed(waiters.get(0), name, LockKind.PERMIT, "sem-w0:1");
    long second = takePushed(waiters.get(1), name, LockKind.PERMIT, "sem-w1:1");
    assertThat(first).isGreaterThan(one.token());
    assertThat(second).as("the second waiter's token, drawn after the first's").isGreaterThan(first);
    assertThat(waiters.get(2).context().pendingWakeUps()).as("wake-ups of the third waiter").isEmpty();
    assertThat(waiters.get(0).backend().release(new Grant(name, "sem-w0:1", first, LockKind.PERMIT))).isTrue();
    assertThat(takePushed(waiters.get(2), name, LockKind.PERMIT, "sem-w2:1")).isGreaterThan(second);
  }

  /**
   * A client still listens on its channel, but none of its threads waits as the owner the release
   * chose (it gave up and its cancel was lost): it passes the grant on at once, so the next waiter
   * gets it now rather than once the untaken grant lapses (the waiter timeout, 3 s).
   */
  @Test
  void aGrantPushedToAClientThatNoLongerWaitsIsPassedOn() throws Exception {
    for (LockKind kind : List.of(LockKind.FAIR, LockKind.READ, LockKind.PERMIT)) {
      String name = "pass-" + kind + "-" + System.nanoTime();
      String gone = "gone-" + kind;
      Client holder = client("pass-holder-" + kind);
      LockKind held = kind == LockKind.READ ? LockKind.WRITE : kind;
      Grant grant = hold(holder, name, held, "pass-holder-" + kind + ":1");
      if (kind == LockKind.PERMIT) {
        hold(holder, name, kind, "pass-holder-" + kind + ":2");
      }
      Client queuing = client(gone);
      queue(queuing, name, kind, gone + ":1");
      queuing.backend().abandon();
      server.awaitNoListener(gone, WAIT);
      Client listening = client(gone);
      Client next = client("pass-next-" + kind);
      LockKind nextKind = kind == LockKind.READ ? LockKind.WRITE : kind;
      queue(next, name, nextKind, "pass-next-" + kind + ":1");
      assertThat(holder.backend().release(grant)).isTrue();
      assertThat(next.context().nextWakeUp(Duration.ofSeconds(2)))
          .as("%s: the next waiter told of a grant before the one pushed to %s lapses", kind, gone)
          .isEqualTo(name);
      assertThat(listening.context().pendingWakeUps()).as("wake-ups of the client that no longer waits")
          .isEmpty();
      Attempt a = next.backend().tryAcquire(request(name, nextKind, "pass-next-" + kind + ":1"));
      assertThat(a.isGranted()).isTrue();
      assertThat(a.token()).isGreaterThan(grant.token());
    }
  }
}

package dev.dlock.zookeeper;

import static dev.dlock.spi.LockKind.READ;
import static dev.dlock.spi.LockKind.WRITE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.LockKind;
import dev.dlock.zookeeper.SpiClients.Spi;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The S13 read-write lock's wake-ups, counted per client through the SPI. A writer's release wakes
 * exactly the readers queued before the next writer; that writer is woken once, when the last of
 * them leaves; a reader queued behind it is not woken at all. A downgraded reader is granted
 * beside its writer although another writer is queued, and that writer then waits for it.
 */
class ReadWriteHerdTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);
  private static final int READERS = 3;

  private TestingServer server;
  private SpiClients clients;

  @BeforeEach
  void start() throws Exception {
    server = ZkServers.server();
    clients = new SpiClients(ZkServers.url(server.getConnectString(), "sessionTimeout=10s"));
  }

  @AfterEach
  void stop() throws Exception {
    clients.close();
    server.close();
  }

  private static Attempt granted(Spi s, String name, LockKind kind) {
    Attempt a = s.request(name, kind, 1);
    assertThat(a.isGranted()).as("%s for %s", kind, s.owner()).isTrue();
    return a;
  }

  private static void held(Spi s, String name, LockKind kind) {
    assertThat(s.request(name, kind, 1).isGranted()).as("%s for %s", kind, s.owner()).isFalse();
  }

  @Test
  void aWritersReleaseWakesTheReadersBeforeTheNextWriterAndThatWriterOnceWhenTheLastLeaves() throws Exception {
    String name = "rw-herd";
    Spi first = clients.open("first");
    Attempt writing = granted(first, name, WRITE);
    List<Spi> readers = new ArrayList<>();
    for (int i = 0; i < READERS; i++) {
      Spi r = clients.open("reader" + i);
      held(r, name, READ);
      readers.add(r);
    }
    Spi writer = clients.open("writer");
    held(writer, name, WRITE);
    Spi late = clients.open("late");
    held(late, name, READ);
    String dir = first.backend().nodes().dir(READ, name);

    first.release(name, WRITE, writing);
    List<Attempt> reading = new ArrayList<>();
    long last = writing.token();
    for (Spi r : readers) {
      assertThat(r.context().nextWakeUp(PATIENCE)).as("wake-up of %s", r.owner()).isEqualTo(name);
      Attempt a = granted(r, name, READ);
      assertThat(a.token()).isGreaterThan(last);
      last = a.token();
      reading.add(a);
    }
    for (int i = 0; i < READERS - 1; i++) {
      assertThat(readers.get(i).release(name, READ, reading.get(i))).isTrue();
    }
    writer.sync(dir);
    assertThat(writer.context().pendingWakeUps()).as("the writer while a reader before it remains").isEmpty();
    held(writer, name, WRITE);

    readers.get(READERS - 1).release(name, READ, reading.get(READERS - 1));
    assertThat(writer.context().nextWakeUp(PATIENCE)).as("the writer's wake-up").isEqualTo(name);
    assertThat(granted(writer, name, WRITE).token()).isGreaterThan(last);
    assertThat(writer.context().pendingWakeUps()).as("further wake-ups of the writer").isEmpty();
    late.sync(dir);
    assertThat(late.context().pendingWakeUps()).as("the reader behind the writer").isEmpty();

    int watchEvents = first.backend().wakeUps() + writer.backend().wakeUps() + late.backend().wakeUps();
    for (Spi r : readers) {
      assertThat(r.context().pendingWakeUps()).as("further wake-ups of %s", r.owner()).isEmpty();
      watchEvents += r.backend().wakeUps();
    }
    assertThat(watchEvents).as("watch events: %d readers, then the writer", READERS).isEqualTo(READERS + 1);
  }

  @Test
  void aDowngradeIsGrantedDespiteAQueuedWriterWhichThenWaitsForIt() throws Exception {
    String name = "rw-downgrade";
    Spi holder = clients.open("holder");
    Attempt writing = granted(holder, name, WRITE);
    Spi writer = clients.open("writer");
    held(writer, name, WRITE);

    Spi downgrade = new Spi(holder.backend(), holder.context(), "holder:2");
    Attempt reading = downgrade.request(name, READ, 1, true, holder.owner());
    assertThat(reading.isGranted()).as("the downgrade beside its own writer").isTrue();
    assertThat(reading.token()).isGreaterThan(writing.token());
    holder.release(name, WRITE, writing);

    assertThat(writer.context().nextWakeUp(PATIENCE)).isEqualTo(name);
    held(writer, name, WRITE); // the downgraded reader ranks ahead of it
    Spi reader = clients.open("reader");
    held(reader, name, READ); // and the queued writer holds back a new reader

    downgrade.release(name, READ, reading);
    assertThat(writer.context().nextWakeUp(PATIENCE)).isEqualTo(name);
    assertThat(granted(writer, name, WRITE).token()).isGreaterThan(reading.token());
  }
}

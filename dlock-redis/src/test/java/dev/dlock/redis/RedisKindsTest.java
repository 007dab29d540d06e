package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the fair, read-write and semaphore kinds share: their keys and their renewal. */
class RedisKindsTest {
  @RegisterExtension
  static final RedisTestServer server = RedisTestServer.perClass();

  @Test
  void everyKeyOfEveryKindOfANameHashesToOneSlotUnderThePrefix() {
    Keys keys = new Keys("dlock:");
    for (String name : List.of("plain", "}", "{}", "a{b}c", "%7D", "日本{語}", "x".repeat(256))) {
      List<byte[]> all = Stream.of(keys.of(name), keys.fair(name), keys.readWrite(name), keys.semaphore(name))
          .flatMap(Stream::of).toList();
      Set<Integer> slots = new HashSet<>();
      Set<String> distinct = new HashSet<>();
      for (byte[] key : all) {
        String k = new String(key, StandardCharsets.UTF_8);
        assertThat(k).startsWith("dlock:{");
        distinct.add(k);
        slots.add(SlotHash.getSlot(key));
        assertThat(keys.nameOf(key)).as("a SCAN for exclusive locks skips %s", k)
            .isEqualTo(k.endsWith("}" + Keys.LOCK) ? name : null);
      }
      assertThat(slots).as("slots of the keys of '%s'", name).hasSize(1);
      assertThat(distinct).as("keys of '%s'", name).hasSize(all.size());
    }
  }

  @Test
  void oneRenewalRoundRenewsEveryKindInOneCommand() throws Exception {
    Counter counter = new Counter();
    try (LockClient c = LockClient.builder().url(server.url() + "?prefix=kinds:").listener(counter)
        .leaseTime(Duration.ofMillis(900)).build();
        LockClient other = LockClient.builder().url(server.url() + "?prefix=kinds:").build()) {
      String name = "renew-" + System.nanoTime();
      List<Lease> held = new ArrayList<>();
      held.add(c.fairLock(name).acquire());
      held.add(c.readWriteLock(name).readLock().acquire());
      held.add(c.readWriteLock(name + "-w").writeLock().acquire());
      held.add(c.semaphore(name, 1).acquire());
      assertThat(counter.await("renewed", held.size(), Duration.ofSeconds(5))).isTrue();
      Map<String, Long> before = server.commandCalls();
      assertThat(counter.await("renewed", held.size(), Duration.ofSeconds(5))).isTrue();
      assertThat(server.callsSince(before).get("evalsha")).as("commands sent for one round of renewals")
          .isEqualTo(1L);
      // Two more rounds, past the 900 ms lease: still held, by the server's account too.
      assertThat(counter.await("renewed", 2 * held.size(), Duration.ofSeconds(5))).isTrue();
      assertThat(held).allMatch(Lease::isValid);
      assertThat(other.fairLock(name).tryAcquire()).as("another client, for the renewed fair lock").isEmpty();
      assertThat(other.readWriteLock(name).writeLock().tryAcquire()).as("a writer, for the renewed read")
          .isEmpty();
      assertThat(other.readWriteLock(name + "-w").readLock().tryAcquire())
          .as("a reader, for the renewed write").isEmpty();
      assertThat(other.semaphore(name, 1).tryAcquire()).as("another permit of the renewed one")
          .isEmpty();
      held.forEach(Lease::close);
      assertThat(server.admin().sync().keys("kinds:*"))
          .as("what is left once everything is released: the counters").allMatch(k -> k.endsWith(":token")
              || k.endsWith(":sem:meta"));
    }
  }
}

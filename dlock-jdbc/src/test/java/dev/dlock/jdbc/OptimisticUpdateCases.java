package dev.dlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.LockException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The S2 optimistic update on a real database, with the flash-sale stock of the articles: buyers
 * decrement one row concurrently, a sale refuses at zero, conflicts are counted, and the helper
 * gives up after its bound naming the key. A competing writer is injected from inside the change
 * function where a test needs a conflict for certain.
 */
abstract class OptimisticUpdateCases {
  private static final AtomicInteger SEQ = new AtomicInteger();
  private String table;

  abstract TestDatabase db();

  @BeforeEach
  void createStock() throws SQLException {
    table = "stock" + SEQ.incrementAndGet();
    db().execute("CREATE TABLE " + table + " (item_id BIGINT PRIMARY KEY, quantity BIGINT NOT NULL,"
        + " version BIGINT NOT NULL)", "INSERT INTO " + table + " VALUES (1, 50, 0)");
  }

  private OptimisticUpdate.Builder stock() throws SQLException {
    return OptimisticUpdate.builder().dataSource(db().dataSource()).table(table).keyColumn("item_id")
        .valueColumn("quantity").versionColumn("version");
  }

  private static OptionalLong sell(long n) {
    return n > 0 ? OptionalLong.of(n - 1) : OptionalLong.empty();
  }

  /** Another buyer's committed sale, as if it ran between our read and our write. */
  private void competingSale() {
    try {
      db().execute("UPDATE " + table + " SET quantity = quantity - 1, version = version + 1 WHERE item_id = 1");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void concurrentBuyersNeverOversellAndConflictsAreCounted() throws Exception {
    OptimisticUpdate stock = stock().maxConflicts(10_000).backoff(Duration.ZERO, Duration.ofMillis(2)).build();
    int buyers = 8;
    ExecutorService pool = Executors.newFixedThreadPool(buyers);
    CountDownLatch start = new CountDownLatch(1);
    AtomicInteger sold = new AtomicInteger();
    AtomicInteger conflicts = new AtomicInteger();
    List<Future<?>> tasks = new ArrayList<>();
    for (int i = 0; i < buyers; i++) {
      tasks.add(pool.submit(() -> {
        start.await();
        while (true) {
          OptimisticUpdate.Result r = stock.update(1L, OptimisticUpdateCases::sell);
          conflicts.addAndGet(r.conflicts());
          if (!r.applied()) {
            assertThat(r.value()).isZero();
            return null;
          }
          assertThat(r.value()).isNotNegative();
          sold.incrementAndGet();
        }
      }));
    }
    start.countDown();
    for (Future<?> t : tasks) {
      t.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(sold.get()).isEqualTo(50);
    OptimisticUpdate.Result last = stock.update(1L, OptimisticUpdateCases::sell);
    assertThat(last.applied()).isFalse();
    assertThat(last.value()).isZero();
    assertThat(last.version()).isEqualTo(50);
    assertThat(conflicts.get()).isNotNegative();
  }

  @Test
  void aWriterBetweenReadAndWriteIsOneConflictAndTheRetryWins() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    OptimisticUpdate.Result r = stock().build().update(1L, n -> {
      if (calls.incrementAndGet() == 1) {
        competingSale();
      }
      return sell(n);
    });
    assertThat(r.applied()).isTrue();
    assertThat(r.conflicts()).isEqualTo(1);
    assertThat(r.value()).isEqualTo(48);
    assertThat(r.version()).isEqualTo(2);
  }

  @Test
  void givesUpAfterTheBoundNamingTheKeyAndTheCount() throws Exception {
    OptimisticUpdate stock = stock().maxConflicts(3).backoff(Duration.ofMillis(1), Duration.ofMillis(5)).build();
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(() -> stock.update(1L, n -> {
      calls.incrementAndGet();
      competingSale();
      return sell(n);
    })).isInstanceOfSatisfying(OptimisticConflictException.class, e -> {
      assertThat(e.conflicts()).isEqualTo(3);
      assertThat(e.key()).isEqualTo(1L);
      assertThat(e).hasMessageContaining("key '1'").hasMessageContaining("after 3 conflicts")
          .hasMessageContaining(table);
    });
    assertThat(calls.get()).isEqualTo(3);
  }

  @Test
  void aRefusedChangeWritesNothing() throws Exception {
    OptimisticUpdate stock = stock().build();
    OptimisticUpdate.Result r = stock.update(1L, n -> OptionalLong.empty());
    assertThat(r).isEqualTo(new OptimisticUpdate.Result(false, 50, 0, 0));
    assertThat(stock.apply(1L, n -> n - 5)).isEqualTo(new OptimisticUpdate.Result(true, 45, 1, 0));
  }

  @Test
  void anInterruptDuringTheBackoffEndsTheUpdate() throws Exception {
    OptimisticUpdate stock = stock().backoff(Duration.ofSeconds(30), Duration.ofSeconds(30)).build();
    assertThatThrownBy(() -> stock.update(1L, n -> {
      competingSale();
      Thread.currentThread().interrupt();
      return sell(n);
    })).isInstanceOf(InterruptedException.class);
    assertThat(Thread.interrupted()).isFalse();
  }

  @Test
  void aMissingRowAndBadSettingsAreRejectedByName() throws Exception {
    assertThatThrownBy(() -> stock().build().apply(99L, n -> n)).isInstanceOf(LockException.class)
        .hasMessageContaining("key '99'").hasMessageContaining(table);
    assertThatThrownBy(() -> OptimisticUpdate.builder().table("stock; DROP TABLE x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table")
        .hasMessageContaining("stock; DROP TABLE x");
    assertThatThrownBy(() -> OptimisticUpdate.builder().versionColumn("1v"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("versionColumn").hasMessageContaining("'1v'");
    assertThatThrownBy(() -> OptimisticUpdate.builder().maxConflicts(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxConflicts").hasMessageContaining("0");
    assertThatThrownBy(() -> OptimisticUpdate.builder().backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT1S");
    assertThatThrownBy(() -> OptimisticUpdate.builder().table("stock").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("dataSource");
  }
}

package dev.dlock.examples.flashsale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.examples.flashsale.Stock.StaleTokenException;
import dev.dlock.examples.servers.Redis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Two nodes of the shop on one real Redis and one database, with more buyers than items: exactly
 * the stock is sold, and a buyer whose lease ran out cannot write the stock row late.
 */
class FlashSaleTest {
  private static final int STOCK = 20;
  private static final int THREADS_PER_NODE = 4;
  private static final int BUYS_PER_THREAD = 5;

  @RegisterExtension
  static final Redis REDIS = new Redis();
  private static ConfigurableApplicationContext a;
  private static ConfigurableApplicationContext b;

  @BeforeAll
  static void start() throws Exception {
    a = node("a");
    b = node("b");
  }

  @AfterAll
  static void stop() throws Exception {
    b.close();
    a.close();
  }

  @Test
  void sellsExactlyTheStockToMoreBuyersThanItems() throws Exception {
    String sku = "sku-42";
    a.getBean(Stock.class).add(sku, STOCK);
    ExecutorService buyers = Executors.newFixedThreadPool(2 * THREADS_PER_NODE);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Integer>> sold = new ArrayList<>();
    try {
      for (ConfigurableApplicationContext node : List.of(a, b)) {
        FlashSale sale = node.getBean(FlashSale.class);
        for (int t = 0; t < THREADS_PER_NODE; t++) {
          String buyer = node.getId() + "-" + t;
          sold.add(buyers.submit(() -> {
            go.await();
            int n = 0;
            for (int i = 0; i < BUYS_PER_THREAD; i++) {
              n += sale.buy(sku, buyer + "-" + i) ? 1 : 0;
            }
            return n;
          }));
        }
      }
      go.countDown();
      int total = 0;
      for (Future<Integer> f : sold) {
        total += f.get(60, TimeUnit.SECONDS);
      }
      assertThat(total).as("items sold to %d buyers", 2 * THREADS_PER_NODE * BUYS_PER_THREAD)
          .isEqualTo(STOCK);
    } finally {
      buyers.shutdownNow();
    }
    assertThat(a.getBean(Stock.class).quantity(sku)).as("items left").isZero();
    List<Long> tokens = db().sql("SELECT token FROM sale WHERE sku = ?").param(sku).query(Long.class).list();
    assertThat(tokens).as("the tokens of the sale rows").hasSize(STOCK).doesNotHaveDuplicates();
  }

  @Test
  void aBuyerWhoseLeaseRanOutCannotWriteLate() throws Exception {
    String sku = "sku-late";
    Stock stock = a.getBean(Stock.class);
    stock.add(sku, 5);
    // A buyer on node a takes the lock with a short lease, then stalls (a GC pause, say).
    Lease paused = a.getBean(LockClient.class).lock("stock:" + sku, Duration.ofMillis(300))
        .acquire(Duration.ofSeconds(5));
    // Node b's buyer gets the lock once that lease runs out, and sells.
    assertThat(b.getBean(FlashSale.class).buy(sku, "next")).isTrue();
    // The stalled buyer wakes up and writes what it would have: the row refuses its older token.
    assertThatThrownBy(() -> stock.sellOne(sku, "paused", paused.token()))
        .isInstanceOf(StaleTokenException.class)
        .hasMessageContaining("token " + paused.token());
    assertThat(stock.quantity(sku)).as("items left").isEqualTo(4);
    assertThat(db().sql("SELECT buyer FROM sale WHERE sku = ?").param(sku).query(String.class).list())
        .containsExactly("next");
    assertThat(paused.isValid()).isFalse();
    assertThatThrownBy(paused::close).isInstanceOf(LeaseLostException.class);
  }

  private static JdbcClient db() {
    return a.getBean(JdbcClient.class);
  }

  private static ConfigurableApplicationContext node(String name) {
    return new SpringApplicationBuilder(FlashSaleApplication.class)
        .run("--spring.application.name=" + name,
            "--dlock.url=" + REDIS.url(),
            "--spring.datasource.url=jdbc:h2:mem:flash-sale;DB_CLOSE_DELAY=-1",
            "--spring.main.banner-mode=off",
            "--logging.level.root=warn");
  }
}

package dev.dlock.examples.redpacket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.examples.servers.Postgres;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Two nodes on one real PostgreSQL, and every user claiming eight times at once, four times on
 * each node: each user is paid once, and every other claim is rejected.
 */
class RedPacketTest {
  private static final int USERS = 20;
  private static final int THREADS_PER_NODE = 4;
  @RegisterExtension
  static final Postgres POSTGRES = new Postgres();

  @Test
  void eachUserIsPaidOnceHoweverOftenTheyClaimOnWhicheverNode() throws Exception {
    List<Payment> paid = new ArrayList<>();
    int claims = 2 * THREADS_PER_NODE * USERS;
    ExecutorService claimants = Executors.newFixedThreadPool(2 * THREADS_PER_NODE);
    try (ConfigurableApplicationContext a = node(); ConfigurableApplicationContext b = node()) {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<List<Payment>>> results = new ArrayList<>();
      for (ConfigurableApplicationContext node : List.of(a, b)) {
        RedPackets packets = node.getBean(RedPackets.class);
        for (int t = 0; t < THREADS_PER_NODE; t++) {
          // Every thread claims the users in the same order, so claims of one user collide.
          results.add(claimants.submit(() -> {
            go.await();
            List<Payment> mine = new ArrayList<>();
            for (long user = 1; user <= USERS; user++) {
              packets.claim(user).ifPresent(mine::add);
            }
            return mine;
          }));
        }
      }
      go.countDown();
      for (Future<List<Payment>> r : results) {
        paid.addAll(r.get(60, TimeUnit.SECONDS));
      }

      System.out.printf("%d claims: %d paid, %d rejected%n", claims, paid.size(), claims - paid.size());
      List<Long> users = LongStream.rangeClosed(1, USERS).boxed().toList();
      assertThat(paid).extracting(Payment::userId).as("the users paid, in claims that returned")
          .containsExactlyInAnyOrderElementsOf(users);
      List<Long> rows = a.getBean(JdbcClient.class)
          .sql("SELECT user_id FROM payment ORDER BY user_id").query(Long.class).list();
      assertThat(rows).as("the users in the payment table").containsExactlyElementsOf(users);
    } finally {
      claimants.shutdownNow();
    }
  }

  private static ConfigurableApplicationContext node() {
    return new SpringApplicationBuilder(RedPacketApplication.class)
        .run("--spring.datasource.url=" + POSTGRES.jdbcUrl(),
            "--spring.datasource.username=postgres",
            "--spring.main.banner-mode=off",
            "--logging.level.root=warn");
  }
}

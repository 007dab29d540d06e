package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.LockClient;
import dev.dlock.LockException;
import dev.dlock.Lease;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class DlockAutoConfigurationTest {

  @Test
  void urlMakesAWorkingClient() {
    Runners.runner().withPropertyValues("dlock.url=" + Runners.h2Url("url"), "dlock.client-name=app")
        .run(ctx -> {
          LockClient client = ctx.getBean(LockClient.class);
          assertThat(client.id()).startsWith("app");
          try (Lease lease = client.lock("job").acquire(Duration.ofSeconds(5))) {
            assertThat(client.inspect("job")).hasValueSatisfying(
                info -> assertThat(info.token()).isEqualTo(lease.token()));
          }
          assertThat(client.inspect("job")).isEmpty();
        });
  }

  @Test
  void withoutUrlTheSingleDataSourceIsUsed() {
    Runners.runner().withUserConfiguration(H2DataSource.class).run(ctx -> {
      LockClient client = ctx.getBean(LockClient.class);
      try (Lease lease = client.lock("job").acquire(Duration.ofSeconds(5))) {
        assertThat(lockRows(ctx.getBean(DataSource.class))).isEqualTo(1);
      }
    });
  }

  @Test
  void theUrlWinsOverTheDataSource() {
    Runners.runner().withUserConfiguration(H2DataSource.class)
        .withPropertyValues("dlock.url=" + Runners.h2Url("wins")).run(ctx -> {
          try (Lease lease = ctx.getBean(LockClient.class).lock("job").tryAcquire().orElseThrow()) {
            assertThat(tableExists(ctx.getBean(DataSource.class))).isFalse();
          }
        });
  }

  @Test
  void neitherUrlNorDataSourceMeansNoClient() {
    Runners.runner().run(ctx -> {
      assertThat(ctx).hasNotFailed();
      assertThat(ctx).doesNotHaveBean(LockClient.class);
      assertThat(ctx).doesNotHaveBean(DlockHealthIndicator.class);
    });
  }

  @Test
  void theUsersOwnClientWins() {
    Runners.runner().withUserConfiguration(OwnClient.class)
        .withPropertyValues("dlock.url=" + Runners.h2Url("own")).run(ctx -> {
          assertThat(ctx).hasSingleBean(LockClient.class);
          assertThat(ctx.getBean(LockClient.class).id()).startsWith("mine");
        });
  }

  @Test
  void theClientIsClosedWithTheContext() {
    LockClient[] client = new LockClient[1];
    Runners.runner().withPropertyValues("dlock.url=" + Runners.h2Url("close"))
        .run(ctx -> {
          client[0] = ctx.getBean(LockClient.class);
          client[0].lock("held").acquire(Duration.ofSeconds(5));
        });
    assertThatThrownBy(() -> client[0].lock("job").tryAcquire())
        .isInstanceOf(LockException.class).hasMessageContaining("closed");
    try (LockClient other = LockClient.connect(Runners.h2Url("close"))) {
      assertThat(other.inspect("held")).as("released on close").isEmpty();
    }
  }

  @Test
  void aLeaseUnderTheMinimumFailsStartNamingIt() {
    Runners.runner().withPropertyValues("dlock.url=mem:", "dlock.lease-time=50ms").run(ctx -> {
      assertThat(ctx).hasFailed();
      assertThat(rootCause(ctx.getStartupFailure()))
          .hasMessageContaining("dlock.lease-time=PT0.05S")
          .hasMessageContaining("at least");
    });
  }

  @Test
  void aBadClientNameFailsStartNamingIt() {
    Runners.runner().withPropertyValues("dlock.url=mem:", "dlock.client-name=a:b").run(ctx ->
        assertThat(rootCause(ctx.getStartupFailure())).hasMessageContaining("dlock.client-name='a:b'"));
  }

  @Test
  void propertiesAreBound() {
    Runners.runner().withPropertyValues("dlock.url=mem:", "dlock.lease-time=2s", "dlock.wait=PT1S",
        "dlock.metrics.name-tag=true").run(ctx -> {
          DlockProperties p = ctx.getBean(DlockProperties.class);
          assertThat(p.getLeaseTime()).isEqualTo(Duration.ofSeconds(2));
          assertThat(p.getWait()).isEqualTo(Duration.ofSeconds(1));
          assertThat(p.getClientName()).isEqualTo("dlock");
          assertThat(p.getMetrics().nameTag()).isTrue();
        });
  }

  @Test
  void metadataIsGenerated() throws Exception {
    try (var in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).isNotNull();
      String json = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(json).contains("\"dlock.url\"", "\"dlock.lease-time\"", "\"dlock.wait\"",
          "\"dlock.client-name\"", "\"dlock.metrics.name-tag\"");
    }
  }

  static Throwable rootCause(Throwable t) {
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  static int lockRows(DataSource ds) throws Exception {
    try (Connection c = ds.getConnection();
        ResultSet rs = c.createStatement().executeQuery(
            "SELECT COUNT(*) FROM dlock_locks WHERE name = 'job' AND owner IS NOT NULL")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  static boolean tableExists(DataSource ds) throws Exception {
    try (Connection c = ds.getConnection();
        ResultSet rs = c.getMetaData().getTables(null, null, "DLOCK_LOCKS", null)) {
      return rs.next();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class H2DataSource {
    private static int count;

    @Bean
    DataSource dataSource() {
      JdbcDataSource ds = new JdbcDataSource();
      ds.setURL(Runners.h2Url("ds" + (++count)));
      return ds;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnClient {
    @Bean(destroyMethod = "close")
    LockClient myClient() {
      return LockClient.builder().url("mem:").clientName("mine").build();
    }
  }
}

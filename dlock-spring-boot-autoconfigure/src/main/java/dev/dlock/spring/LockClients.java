package dev.dlock.spring;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.LockListener;
import dev.dlock.jdbc.JdbcLockBackend;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The two ways the starter makes its {@link LockClient}: from {@code dlock.url}, else on the
 * application's DataSource.
 *
 * <p>Why two imported classes rather than two bean methods: {@link DlockAutoConfiguration} imports
 * them in this order, so the URL always wins and the DataSource is only the fallback, which bean
 * methods of one class would not promise.
 */
final class LockClients {
  private LockClients() {}

  /** A client on {@code dlock.url}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty("dlock.url")
  static class FromUrl {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    LockClient lockClient(DlockProperties properties, ObjectProvider<LockListener> listeners) {
      return builder(properties, listeners).url(properties.getUrl()).build();
    }
  }

  /** A lease-lock client on the context's only DataSource, as ShedLock users expect. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.dlock.jdbc.JdbcLockBackend")
  @ConditionalOnSingleCandidate(DataSource.class)
  static class FromDataSource {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    LockClient lockClient(
        DlockProperties properties, DataSource dataSource, ObjectProvider<LockListener> listeners) {
      return builder(properties, listeners)
          .backend(JdbcLockBackend.builder().dataSource(dataSource).build())
          .build();
    }
  }

  static LockClientBuilder builder(
      DlockProperties properties, ObjectProvider<LockListener> listeners) {
    LockClientBuilder builder = LockClient.builder()
        .leaseTime(properties.getLeaseTime())
        .clientName(properties.getClientName());
    listeners.orderedStream().forEach(builder::listener);
    return builder;
  }
}

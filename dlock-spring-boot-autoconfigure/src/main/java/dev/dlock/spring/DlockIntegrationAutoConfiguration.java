package dev.dlock.spring;

import dev.dlock.LockClient;
import dev.dlock.spring.integration.DlockLockRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Adds a {@link DlockLockRegistry} on the {@link LockClient} bean when Spring Integration is
 * present, unless the application defines its own {@link LockRegistry}.
 *
 * <p>Why its own auto-configuration after {@link DlockAutoConfiguration}: Spring Integration is
 * optional, and the condition on the client bean only sees that bean once the client's
 * configuration has been read.
 */
@AutoConfiguration(after = DlockAutoConfiguration.class)
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBean(LockClient.class)
public class DlockIntegrationAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(LockRegistry.class)
  DlockLockRegistry dlockLockRegistry(LockClient client) {
    return new DlockLockRegistry(client);
  }
}

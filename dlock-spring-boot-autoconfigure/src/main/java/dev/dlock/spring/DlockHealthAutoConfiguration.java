package dev.dlock.spring;

import dev.dlock.LockClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Adds {@link DlockHealthIndicator} (health contributor {@code dlock}) when Spring Boot's health
 * module is present and a {@link LockClient} bean exists.
 *
 * <p>Why its own auto-configuration after {@link DlockAutoConfiguration}: its condition on the
 * client bean only sees that bean once the client's configuration has been read.
 */
@AutoConfiguration(after = DlockAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnBean(LockClient.class)
public class DlockHealthAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "dlockHealthIndicator")
  DlockHealthIndicator dlockHealthIndicator(LockClient client) {
    return new DlockHealthIndicator(client);
  }
}

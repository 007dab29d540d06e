package dev.dlock.spring;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * Makes {@link ScheduledLock} and {@link DistributedLock} work on the context's beans.
 *
 * <p>Why it has no condition on the client: a locked method in a context without a
 * {@code LockClient} must fail the start, never run unlocked.
 */
@AutoConfiguration(after = DlockAutoConfiguration.class)
public class DlockAnnotationsAutoConfiguration {

  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static LockAnnotationPostProcessor dlockLockAnnotationPostProcessor() {
    return new LockAnnotationPostProcessor();
  }
}

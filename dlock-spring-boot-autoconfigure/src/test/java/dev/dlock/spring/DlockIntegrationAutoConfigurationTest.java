package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.spring.integration.DlockLockRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * The registry's auto-configuration. Why a filtered class loader: hiding Spring Integration's
 * package is what an application without it looks like, on the same test classpath.
 */
class DlockIntegrationAutoConfigurationTest {

  @Test
  void theRegistryHandsOutTheClientsLocks() {
    Runners.runner().withPropertyValues("dlock.url=" + Runners.h2Url("registry")).run(ctx -> {
      assertThat(ctx).hasSingleBean(LockRegistry.class).hasSingleBean(DlockLockRegistry.class);
      LockClient client = ctx.getBean(LockClient.class);
      DistributedLock lock = ctx.getBean(DlockLockRegistry.class).obtain("job");
      lock.lock();
      try {
        assertThat(client.inspect("job")).hasValueSatisfying(
            info -> assertThat(info.owner()).startsWith(client.id()));
      } finally {
        lock.unlock();
      }
    });
  }

  @Test
  void theUsersOwnRegistryWins() {
    Runners.runner().withUserConfiguration(OwnRegistry.class)
        .withPropertyValues("dlock.url=mem:").run(ctx -> {
          assertThat(ctx).hasSingleBean(LockRegistry.class).doesNotHaveBean(DlockLockRegistry.class);
          assertThat(ctx.getBean(LockRegistry.class)).isInstanceOf(DefaultLockRegistry.class);
        });
  }

  @Test
  void noRegistryWithoutAClient() {
    Runners.runner().run(ctx -> {
      assertThat(ctx).hasNotFailed();
      assertThat(ctx).doesNotHaveBean(LockRegistry.class);
    });
  }

  @Test
  void noRegistryWithoutSpringIntegration() {
    Runners.runner().withClassLoader(new FilteredClassLoader("org.springframework.integration"))
        .withPropertyValues("dlock.url=mem:").run(ctx -> {
          assertThat(ctx).hasNotFailed().hasSingleBean(LockClient.class);
          assertThat(ctx).doesNotHaveBean(DlockLockRegistry.class);
        });
  }

  @Test
  void isListedAsAnAutoConfiguration() {
    assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()))
        .contains(DlockIntegrationAutoConfiguration.class.getName());
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnRegistry {
    @Bean
    LockRegistry<?> myRegistry() {
      return new DefaultLockRegistry();
    }
  }
}

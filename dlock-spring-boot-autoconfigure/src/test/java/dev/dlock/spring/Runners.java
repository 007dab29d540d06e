package dev.dlock.spring;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The context runner of the starter's tests, with its auto-configurations. */
final class Runners {
  private Runners() {}

  static ApplicationContextRunner runner() {
    return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(
        DlockMetricsAutoConfiguration.class,
        DlockAutoConfiguration.class,
        DlockHealthAutoConfiguration.class,
        DlockAnnotationsAutoConfiguration.class,
        DlockIntegrationAutoConfiguration.class,
        DlockEndpointAutoConfiguration.class));
  }

  /** A fresh in-memory H2 URL that lives as long as the JVM. */
  static String h2Url(String db) {
    return "jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1";
  }
}

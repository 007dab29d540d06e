package dev.dlock.spring;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Adds {@link DlockMetrics}, a {@code LockListener} that the starter's client picks up, when
 * Micrometer and a {@link MeterRegistry} bean are present.
 *
 * <p>Why a separate auto-configuration ordered before {@link DlockAutoConfiguration}: listeners
 * are given to the client when it is built, so the listener bean must be defined first.
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@EnableConfigurationProperties(DlockProperties.class)
public class DlockMetricsAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  DlockMetrics dlockMetrics(MeterRegistry registry, DlockProperties properties) {
    return new DlockMetrics(
        registry, DlockMetrics.backend(properties.getUrl()), properties.getMetrics().nameTag());
  }
}

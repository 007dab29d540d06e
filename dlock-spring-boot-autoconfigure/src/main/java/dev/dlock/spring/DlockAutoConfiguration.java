package dev.dlock.spring;

import dev.dlock.LockClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;

/**
 * Makes a {@link LockClient} bean from {@code dlock.url}, or, with no URL, on the application's
 * single {@code DataSource}; neither means no bean. The user's own {@code LockClient} bean wins.
 * The client gets every {@code LockListener} bean, and is closed with the context.
 *
 * <p>Why no bean rather than a failure when nothing is configured: an application that has the
 * starter but never injects a {@code LockClient} should still start, and one that does inject it
 * fails at start with Spring's own "no bean of type LockClient" message.
 */
@AutoConfiguration(
    afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
    after = DlockMetricsAutoConfiguration.class)
@EnableConfigurationProperties(DlockProperties.class)
@Import({LockClients.FromUrl.class, LockClients.FromDataSource.class})
public class DlockAutoConfiguration {}

package dev.dlock.spring;

import dev.dlock.LockClient;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code dlock.*} properties of the starter. Immutable: bound once through the constructor.
 *
 * <p>Why a class checked in its constructor (not a record, since a record cannot have a component
 * named {@code wait}): a bad value fails the application's start, naming the property, instead of
 * the first lock call. The lease and client name are checked by dlock's own builder, so the
 * starter never disagrees with it.
 */
@ConfigurationProperties("dlock")
public final class DlockProperties {
  /** A dlock URL (jdbc:..., redis://..., zookeeper://..., mem:); when absent, the single DataSource. */
  private final String url;
  /** The lease of watchdog-renewed locks, at least 100 ms. */
  private final Duration leaseTime;
  /** How long an acquire made for the application waits by default. */
  private final Duration wait;
  /** A readable prefix of this client's id, such as the service name: up to 64 chars, no ':'. */
  private final String clientName;
  /** The Micrometer settings. */
  private final Metrics metrics;

  /**
   * Checks every value, naming the property and the value it refuses.
   *
   * @param url        a dlock URL ({@code jdbc:...}, {@code redis://...}, {@code zookeeper://...},
   *                   {@code mem:}); when absent, the application's single DataSource is used
   * @param leaseTime  the lease of watchdog-renewed locks, at least 100 ms
   * @param wait       how long an acquire made for the application waits by default
   * @param clientName a readable prefix of this client's id, such as the service name
   * @param metrics    the Micrometer settings
   */
  public DlockProperties(
      String url,
      @DefaultValue("30s") Duration leaseTime,
      @DefaultValue("30s") Duration wait,
      @DefaultValue("dlock") String clientName,
      @DefaultValue Metrics metrics) {
    if (url != null && url.isBlank()) {
      throw new IllegalArgumentException("dlock.url is blank: '" + url + "'");
    }
    try {
      LockClient.builder().leaseTime(leaseTime);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "dlock.lease-time=" + leaseTime + " is refused: " + e.getMessage());
    }
    if (wait == null || wait.isNegative()) {
      throw new IllegalArgumentException("dlock.wait must be zero or more: " + wait);
    }
    try {
      LockClient.builder().clientName(clientName);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "dlock.client-name='" + clientName + "' is refused: " + e.getMessage());
    }
    this.url = url;
    this.leaseTime = leaseTime;
    this.wait = wait;
    this.clientName = clientName;
    this.metrics = metrics != null ? metrics : new Metrics(false);
  }

  /** The dlock URL, or null to use the DataSource. */
  public String getUrl() {
    return url;
  }

  /** The lease of watchdog-renewed locks. */
  public Duration getLeaseTime() {
    return leaseTime;
  }

  /** How long an acquire made for the application waits by default. */
  public Duration getWait() {
    return wait;
  }

  /** The prefix of the client's id. */
  public String getClientName() {
    return clientName;
  }

  /** The Micrometer settings. */
  public Metrics getMetrics() {
    return metrics;
  }

  /**
   * The {@code dlock.metrics.*} properties.
   *
   * @param nameTag Whether meters carry the lock name as a tag; off by default, since names can be
   *                unbounded (one per user id, say) and every tag value makes a new time series.
   */
  public record Metrics(@DefaultValue("false") boolean nameTag) {}
}

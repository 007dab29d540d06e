package dev.dlock.spring;

import dev.dlock.LockClient;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * UP when the lock backend answers a cheap question ({@code inspect} of one name), DOWN with the
 * error's message when it does not.
 *
 * <p>Why only the message, not the exception: dlock's messages name the server with its password
 * hidden, while a cause from a driver might print it, and health details can be public.
 */
public final class DlockHealthIndicator implements HealthIndicator {
  /** The name asked about; nobody needs to hold it. */
  static final String PROBE = "dlock-health";

  private final LockClient client;

  /** @param client the client whose backend is pinged */
  public DlockHealthIndicator(LockClient client) {
    this.client = client;
  }

  @Override
  public Health health() {
    try {
      client.inspect(PROBE);
      return Health.up().withDetail("client", client.id()).build();
    } catch (UnsupportedOperationException e) {
      return Health.unknown().withDetail("reason", "the backend cannot inspect locks").build();
    } catch (RuntimeException e) {
      return Health.down().withDetail("error", String.valueOf(e.getMessage())).build();
    }
  }
}

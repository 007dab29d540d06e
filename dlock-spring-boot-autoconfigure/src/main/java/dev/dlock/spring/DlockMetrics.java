package dev.dlock.spring;

import dev.dlock.LeaseLostException;
import dev.dlock.LockListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Records a client's lock events in Micrometer: {@code dlock.acquire} (the wait, tag
 * {@code outcome}: {@code acquired} or {@code timeout}), {@code dlock.timeouts}, {@code dlock.held},
 * {@code dlock.lost}, {@code dlock.abandoned} and the gauge {@code dlock.held.count}, all tagged
 * {@code backend}, and {@code name} when asked for; and {@code dlock.scheduled.skipped}, the
 * {@link ScheduledLock} runs a node skipped.
 *
 * <p>Why the gauge counts a set of grants rather than a number: a grant may end by release, loss
 * or abandonment, possibly more than one of them, and removing it from a set makes each count once.
 */
public final class DlockMetrics implements LockListener, ScheduledLockListener {
  private final MeterRegistry registry;
  private final Tags tags;
  private final boolean nameTag;
  private final Set<String> held = ConcurrentHashMap.newKeySet();

  /**
   * @param registry where the meters go
   * @param backend  the backend tag, such as {@code redis} or {@code jdbc}
   * @param nameTag  whether to tag meters with the lock name
   */
  public DlockMetrics(MeterRegistry registry, String backend, boolean nameTag) {
    this.registry = registry;
    this.tags = Tags.of("backend", backend);
    this.nameTag = nameTag;
    registry.gauge("dlock.held.count", tags, held, Set::size);
  }

  /** The backend tag of a dlock URL: its scheme, {@code jdbc} for a DataSource or no URL. */
  public static String backend(String url) {
    if (url == null) {
      return "jdbc";
    }
    int colon = url.indexOf(':');
    return colon > 0 ? url.substring(0, colon) : url;
  }

  @Override
  public void acquired(String name, long token, Duration waited) {
    held.add(key(name, token));
    Timer.builder("dlock.acquire").tags(tags(name)).tag("outcome", "acquired")
        .register(registry).record(waited);
  }

  @Override
  public void timedOut(String name, Duration waited) {
    Timer.builder("dlock.acquire").tags(tags(name)).tag("outcome", "timeout")
        .register(registry).record(waited);
    Counter.builder("dlock.timeouts").tags(tags(name)).register(registry).increment();
  }

  @Override
  public void released(String name, long token, Duration held) {
    this.held.remove(key(name, token));
    Timer.builder("dlock.held").tags(tags(name)).register(registry).record(held);
  }

  @Override
  public void lost(String name, long token, LeaseLostException reason) {
    held.remove(key(name, token));
    Counter.builder("dlock.lost").tags(tags(name)).register(registry).increment();
  }

  @Override
  public void abandoned(String name, long token, String threadName) {
    held.remove(key(name, token));
    Counter.builder("dlock.abandoned").tags(tags(name)).register(registry).increment();
  }

  @Override
  public void skipped(String name) {
    Counter.builder("dlock.scheduled.skipped").tags(tags(name)).register(registry).increment();
  }

  private Tags tags(String name) {
    return nameTag ? tags.and("name", name) : tags;
  }

  private static String key(String name, long token) {
    return token + ":" + name;
  }
}

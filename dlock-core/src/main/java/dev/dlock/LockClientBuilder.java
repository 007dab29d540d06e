package dev.dlock;

import static java.util.Objects.requireNonNull;

import dev.dlock.engine.Args;
import dev.dlock.engine.Backends;
import dev.dlock.engine.Engine;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;

/** Builds a {@link LockClient}. Not thread-safe; the client it builds is immutable in its settings. */
public final class LockClientBuilder {
  static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
  static final Duration DEFAULT_MAX_POLL = Duration.ofSeconds(1);

  @Nullable String url;
  @Nullable LockBackend backend;
  Duration leaseTime = DEFAULT_LEASE;
  Duration maxPollInterval = DEFAULT_MAX_POLL;
  String clientName = "dlock";
  Ticker ticker = Ticker.system();
  @Nullable ScheduledExecutorService scheduler;
  final List<LockListener> listeners = new ArrayList<>();

  LockClientBuilder() {}

  /** The backend URL, looked up by scheme; exclusive with {@link #backend}. */
  public LockClientBuilder url(String url) {
    this.url = requireNonNull(url, "url");
    this.backend = null;
    return this;
  }

  /**
   * A backend built by its own builder; the client takes ownership and closes it. Exclusive with
   * {@link #url}.
   */
  public LockClientBuilder backend(LockBackend backend) {
    this.backend = requireNonNull(backend, "backend");
    this.url = null;
    return this;
  }

  /** The lease renewed by the watchdog every third of it; default 30 s. */
  public LockClientBuilder leaseTime(Duration leaseTime) {
    this.leaseTime = Args.leaseTime(leaseTime);
    return this;
  }

  /**
   * The longest a waiter sleeps without a notification before asking the server again, which
   * bounds the cost of a lost notification; default 1 s.
   */
  public LockClientBuilder maxPollInterval(Duration maxPollInterval) {
    this.maxPollInterval = Args.positive("maxPollInterval", maxPollInterval, Duration.ofHours(1));
    return this;
  }

  /**
   * A readable prefix for this client's id, such as a host or service name: up to 64 chars, no
   * {@code ':'}. Default {@code "dlock"}.
   */
  public LockClientBuilder clientName(String clientName) {
    this.clientName = Args.clientName(clientName);
    return this;
  }

  /**
   * The monotonic clock for lease arithmetic, deadlines and the pauses between polls; default
   * {@link Ticker#system()}. A wait ends by this clock: under a ticker that stands still, a wait ends
   * only when what it waits for comes.
   */
  public LockClientBuilder ticker(Ticker ticker) {
    this.ticker = requireNonNull(ticker, "ticker");
    return this;
  }

  /**
   * The timers and renewal rounds of the client, in place of the threads it makes itself: the
   * renewal period, the loss deadlines and the renewal calls to the server all run on it, so a test
   * can drive them with a fake, together with {@link #ticker}. Give it the ticker's notion of time,
   * and enough threads that a renewal call hanging on a frozen server does not hold up the
   * deadlines. The client does not shut it down; closing the client cancels what it scheduled.
   * Default: a timer thread and a renewal thread of the client's own.
   */
  public LockClientBuilder scheduler(ScheduledExecutorService scheduler) {
    this.scheduler = requireNonNull(scheduler, "scheduler");
    return this;
  }

  /** Adds a listener for this client's events. */
  public LockClientBuilder listener(LockListener listener) {
    listeners.add(requireNonNull(listener, "listener"));
    return this;
  }

  /**
   * Opens the backend and starts the client.
   *
   * @throws IllegalStateException if neither a URL nor a backend was given
   * @throws IllegalArgumentException if no backend handles the URL
   * @throws BackendUnavailableException if the server cannot be reached
   */
  public LockClient build() {
    if (url == null && backend == null) {
      throw new IllegalStateException("a LockClient needs a url(...) or a backend(...)");
    }
    LockBackend opened = backend != null ? backend : Backends.open(requireNonNull(url));
    return Engine.start(new Engine.Settings(clientName, leaseTime, maxPollInterval, ticker,
        List.copyOf(listeners), scheduler), opened);
  }
}

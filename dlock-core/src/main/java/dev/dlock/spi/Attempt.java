package dev.dlock.spi;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** The answer to one {@link LockBackend#tryAcquire}: granted with a token, or held by another. */
public final class Attempt {
  private final boolean granted;
  private final long token;
  private final @Nullable Duration validity;
  private final Duration retryAfter;
  private final @Nullable String holder;

  private Attempt(boolean granted, long token, @Nullable Duration validity, Duration retryAfter,
      @Nullable String holder) {
    this.granted = granted;
    this.token = token;
    this.validity = validity;
    this.retryAfter = retryAfter;
    this.holder = holder;
  }

  /** Granted for the full lease time requested. */
  public static Attempt granted(long token) {
    return new Attempt(true, token, null, Duration.ZERO, null);
  }

  /**
   * Granted, but valid for less than the lease time requested, counted from the moment the request
   * was sent (Redlock subtracts the time spent and the clock drift; Redis grants a woken waiter
   * for its waiter timeout only). The engine renews a grant that falls well short at once: a
   * watchdog lock's in the background if under a third of the lease is left, a fixed lease's
   * before {@code lock()} returns if under three quarters is.
   */
  public static Attempt granted(long token, Duration validity) {
    requireNonNull(validity, "validity");
    if (validity.isNegative() || validity.isZero()) {
      throw new IllegalArgumentException("validity must be positive: " + validity);
    }
    return new Attempt(true, token, validity, Duration.ZERO, null);
  }

  /**
   * Held by someone else.
   *
   * @param retryAfter when to try again at the latest without a notification: the time left on the
   *     holder's lease, or the poll interval of a backend without notifications. The engine caps it.
   * @param holder the holder's owner string if the backend knows it cheaply, else null
   */
  public static Attempt held(Duration retryAfter, @Nullable String holder) {
    requireNonNull(retryAfter, "retryAfter");
    if (retryAfter.isNegative()) {
      retryAfter = Duration.ZERO;
    }
    return new Attempt(false, 0, null, retryAfter, holder);
  }

  /** True for a grant, false for "held". */
  public boolean isGranted() {
    return granted;
  }

  /** The fencing token of a grant. */
  public long token() {
    if (!granted) {
      throw new IllegalStateException("not granted");
    }
    return token;
  }

  /** A validity shorter than the lease time, if the backend gave one. */
  public Optional<Duration> validity() {
    return Optional.ofNullable(validity);
  }

  /** For "held": the latest time to try again without a notification. */
  public Duration retryAfter() {
    return retryAfter;
  }

  /** For "held": the holder's owner string, if known. */
  public Optional<String> holder() {
    return Optional.ofNullable(holder);
  }

  @Override
  public String toString() {
    return granted
        ? "granted(token=" + token + (validity == null ? "" : ", validity=" + validity) + ")"
        : "held(retryAfter=" + retryAfter + (holder == null ? "" : ", holder=" + holder) + ")";
  }
}

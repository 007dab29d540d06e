package dev.dlock.internal;

import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What a backend derives from a lock name (its keys, its path), kept for the last name asked. Why
 * one and not a map: a client that takes one lock over and over (a nightly job's, a hot key's)
 * then derives it once instead of at every acquire and release, and a client that rotates through
 * many names keeps nothing for them. Thread-safe: two threads asking at once may both derive it.
 * The value is shared between callers, so it must not be changed by them.
 *
 * @param <T> what is derived
 */
public final class LastName<T> {
  private final Function<String, T> derive;
  private volatile @Nullable Entry<T> last;

  private record Entry<T>(String name, T value) {}

  /**
   * @param derive makes the value of a name; called again for each name that is not the last one
   */
  public LastName(Function<String, T> derive) {
    this.derive = Objects.requireNonNull(derive, "derive");
  }

  /** The value of {@code name}: the kept one if {@code name} was the last asked, else derived now. */
  public T get(String name) {
    Entry<T> e = last;
    if (e != null && e.name.equals(name)) {
      return e.value;
    }
    T value = derive.apply(name);
    last = new Entry<>(name, value);
    return value;
  }
}

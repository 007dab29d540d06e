package dev.dlock.bench.targets;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The targets by name. A new backend or peer joins the benchmark with one line here and a class
 * implementing {@link Target}. The first entry is the floor that the others are compared with.
 */
public final class Targets {
  private static final Map<String, Supplier<Target>> REGISTRY = new LinkedHashMap<>();

  static {
    REGISTRY.put(ReentrantLockTarget.NAME, ReentrantLockTarget::new);
    REGISTRY.put(MemTarget.NAME, MemTarget::new);
  }

  private Targets() {}

  /** Every registered name, the floor first. */
  public static List<String> names() {
    return List.copyOf(REGISTRY.keySet());
  }

  /**
   * Returns {@code name} if it is registered.
   *
   * @throws IllegalArgumentException naming the known targets if it is not
   */
  public static String check(String name) {
    if (!REGISTRY.containsKey(name)) {
      throw new IllegalArgumentException("unknown target '" + name + "'; known: " + String.join(", ", names()));
    }
    return name;
  }

  /**
   * A fresh, not yet set up target.
   *
   * @throws IllegalArgumentException naming the known targets if {@code name} is not one
   */
  public static Target create(String name) {
    return REGISTRY.get(check(name)).get();
  }
}

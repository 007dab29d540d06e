package dev.dlock.bench.targets;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The targets by name. A new backend or peer joins the benchmark with one line here and a class
 * implementing {@link Target}. The first entry is the floor that the others are compared with.
 * Each server backend also has a floor of its own ({@value #FLOOR_PREFIX}...): the fewest round
 * trips any lock on that backend needs, run in the backend's preset, in W1 and W3 (it does not
 * queue), and the ZooKeeper floor also in W4 ({@link #handsOff}). W2-1c, sixteen threads of one
 * client, has a floor of its own that needs no server: {@value #HANDOFF_FLOOR}, a fair in-process
 * lock, which every preset and the defaults include.
 *
 * <p>Targets that need a database are not run by default, so a plain {@code ./bench} stays quick;
 * they run when named, or all together through the preset {@value #JDBC}.
 */
public final class Targets {
  /** The preset naming every JDBC target, in table order. */
  public static final String JDBC = "jdbc";
  /** The preset naming every Redis target, in table order. */
  public static final String REDIS = "redis";
  /** The preset naming every ZooKeeper target, in table order. */
  public static final String ZOOKEEPER = "zookeeper";
  /** The preset naming every replicated-Redis target (Sentinel, Redlock), in table order. */
  public static final String REDIS_HA = "redis-ha";

  /** How the name of every backend floor begins; the reports find floor rows by it. */
  public static final String FLOOR_PREFIX = "floor-";
  /** The floor of W2-1c, on every backend: a FIFO hand-off between the threads of one process. */
  public static final String HANDOFF_FLOOR = FLOOR_PREFIX + "handoff";

  private static final Map<String, Supplier<Target>> REGISTRY = new LinkedHashMap<>();
  private static final List<String> DEFAULTS;
  private static final List<String> JDBC_TARGETS;
  static final List<String> REDIS_TARGETS;
  private static final List<String> ZOOKEEPER_TARGETS;
  private static final List<String> REDIS_HA_TARGETS;
  // Each target of a backend to the floor of that backend, the floor to itself.
  private static final Map<String, String> FLOORS = new LinkedHashMap<>();
  // Targets known to create() but to no listing: the harness's own tests register theirs here.
  private static final Map<String, Supplier<Target>> UNLISTED = new ConcurrentHashMap<>();

  static {
    REGISTRY.put(ReentrantLockTarget.NAME, ReentrantLockTarget::unfair);
    REGISTRY.put(DlockTarget.MEM, DlockTarget::mem);
    REGISTRY.put(HANDOFF_FLOOR, ReentrantLockTarget::handoffFloor);
    DEFAULTS = List.copyOf(REGISTRY.keySet());
    REGISTRY.put(DlockTarget.JDBC_PG, DlockTarget::jdbcPg);
    REGISTRY.put(SpringJdbcTarget.NAME, SpringJdbcTarget::new);
    REGISTRY.put(ShedLockTarget.NAME, ShedLockTarget::new);
    REGISTRY.put(FloorPgTarget.NAME, FloorPgTarget::new);
    JDBC_TARGETS = List.of(DlockTarget.JDBC_PG, SpringJdbcTarget.NAME, ShedLockTarget.NAME, FloorPgTarget.NAME);
    REGISTRY.put(DlockTarget.REDIS, DlockTarget::redis);
    REGISTRY.put(RedissonTarget.LOCK, RedissonTarget::lock);
    REGISTRY.put(RedissonTarget.FAIR, RedissonTarget::fair);
    REGISTRY.put(SpringRedisTarget.NAME, SpringRedisTarget::new);
    REGISTRY.put(FloorRedisTarget.NAME, FloorRedisTarget::plain);
    REGISTRY.put(FloorRedisTarget.FENCED, FloorRedisTarget::fenced);
    REDIS_TARGETS = List.of(DlockTarget.REDIS, RedissonTarget.LOCK, RedissonTarget.FAIR, SpringRedisTarget.NAME,
        FloorRedisTarget.NAME, FloorRedisTarget.FENCED);
    REGISTRY.put(DlockTarget.ZOOKEEPER, DlockTarget::zookeeper);
    REGISTRY.put(CuratorTarget.NAME, CuratorTarget::new);
    REGISTRY.put(FloorZkTarget.NAME, FloorZkTarget::plain);
    REGISTRY.put(FloorZkTarget.QUEUE, FloorZkTarget::queue);
    ZOOKEEPER_TARGETS =
        List.of(DlockTarget.ZOOKEEPER, CuratorTarget.NAME, FloorZkTarget.NAME, FloorZkTarget.QUEUE);
    REGISTRY.put(DlockTarget.SENTINEL, () -> DlockTarget.sentinel(false));
    REGISTRY.put(DlockTarget.SENTINEL_WAIT, () -> DlockTarget.sentinel(true));
    REGISTRY.put(RedissonHaTarget.SENTINEL, RedissonHaTarget::sentinel);
    REGISTRY.put(RedissonHaTarget.REPLICATED, RedissonHaTarget::replicated);
    REGISTRY.put(DlockTarget.REDLOCK, DlockTarget::redlock);
    REGISTRY.put(RedissonHaTarget.REDLOCK, RedissonHaTarget::redlock);
    REDIS_HA_TARGETS = List.of(DlockTarget.SENTINEL, DlockTarget.SENTINEL_WAIT, RedissonHaTarget.SENTINEL,
        RedissonHaTarget.REPLICATED, DlockTarget.REDLOCK, RedissonHaTarget.REDLOCK);
    JDBC_TARGETS.forEach(t -> FLOORS.put(t, FloorPgTarget.NAME));
    REDIS_TARGETS.forEach(t -> FLOORS.put(t, FloorRedisTarget.NAME));
    ZOOKEEPER_TARGETS.forEach(t -> FLOORS.put(t, FloorZkTarget.NAME));
  }

  private Targets() {}

  /** Every registered name, the floor first. */
  public static List<String> names() {
    return List.copyOf(REGISTRY.keySet());
  }

  /** The targets of a run that names none: those needing no server. */
  public static List<String> defaults() {
    return DEFAULTS;
  }

  /**
   * The names {@code name} stands for: itself if registered, or the targets of a preset.
   *
   * @throws IllegalArgumentException naming the known targets if it is neither
   */
  public static List<String> expand(String name) {
    if (REDIS.equals(name)) {
      return withHandoffFloor(REDIS_TARGETS);
    }
    if (ZOOKEEPER.equals(name)) {
      return withHandoffFloor(ZOOKEEPER_TARGETS);
    }
    if (REDIS_HA.equals(name)) {
      return withHandoffFloor(REDIS_HA_TARGETS);
    }
    return JDBC.equals(name) ? withHandoffFloor(JDBC_TARGETS) : List.of(check(name));
  }

  private static List<String> withHandoffFloor(List<String> preset) {
    List<String> all = new ArrayList<>(preset);
    all.add(HANDOFF_FLOOR);
    return List.copyOf(all);
  }

  /**
   * Whether {@code name} can run W4, a handoff: every target but the floors whose lock does not
   * wait (floor-redis, floor-pg); floor-zookeeper's waiter queues and watches.
   */
  public static boolean handsOff(String name) {
    return !isFloor(name) || name.equals(FloorZkTarget.NAME);
  }

  /** Whether {@code name} is {@value #HANDOFF_FLOOR}, the floor that runs in W2-1c and nowhere else. */
  public static boolean isHandoffFloor(String name) {
    return name.equals(HANDOFF_FLOOR);
  }

  /** Whether {@code name} is a backend floor, which runs in W1 and W3 (and W4 if it {@link #handsOff}). */
  public static boolean isFloor(String name) {
    return name.startsWith(FLOOR_PREFIX);
  }

  /**
   * The floor of {@code name}'s backend (itself for a floor), or null for a target with none: the
   * in-JVM ones, and replicated Redis, whose servers are not the floor's.
   */
  public static String floorOf(String name) {
    return FLOORS.get(name);
  }

  /** Lines for the legend below the table about how the chosen targets are set up; may be empty. */
  public static String legend(List<String> targets) {
    StringBuilder sb = new StringBuilder();
    if (targets.stream().anyMatch(JDBC_TARGETS::contains)) {
      sb.append(PgServer.LEGEND).append('\n');
    }
    if (targets.contains(SpringJdbcTarget.NAME)) {
      sb.append(SpringJdbcTarget.LEGEND).append('\n');
    }
    if (targets.contains(ShedLockTarget.NAME)) {
      sb.append(ShedLockTarget.LEGEND).append('\n');
    }
    if (targets.contains(FloorPgTarget.NAME)) {
      sb.append(FloorPgTarget.LEGEND).append('\n');
    }
    if (targets.stream().anyMatch(REDIS_TARGETS::contains)) {
      sb.append(RedisBenchServer.LEGEND).append('\n');
      if (targets.contains(FloorRedisTarget.NAME) || targets.contains(FloorRedisTarget.FENCED)) {
        sb.append(FloorRedisTarget.LEGEND).append('\n');
      }
      sb.append(RedisCommandCost.line(targets)).append('\n');
    }
    if (targets.stream().anyMatch(REDIS_HA_TARGETS::contains)) {
      sb.append(HaBenchServers.LEGEND).append('\n');
    }
    if (targets.contains(HANDOFF_FLOOR)) {
      sb.append(ReentrantLockTarget.LEGEND).append('\n');
    }
    if (targets.stream().anyMatch(ZOOKEEPER_TARGETS::contains)) {
      sb.append(ZkServer.LEGEND).append('\n');
    }
    if (targets.contains(CuratorTarget.NAME)) {
      sb.append(CuratorTarget.LEGEND).append('\n');
    }
    if (targets.contains(FloorZkTarget.NAME) || targets.contains(FloorZkTarget.QUEUE)) {
      sb.append(FloorZkTarget.LEGEND).append('\n');
    }
    return sb.toString();
  }

  /**
   * Returns {@code name} if it is registered.
   *
   * @throws IllegalArgumentException naming the known targets if it is not
   */
  public static String check(String name) {
    if (!REGISTRY.containsKey(name)) {
      List<String> known = new ArrayList<>(names());
      known.add(JDBC + " (= " + String.join(",", expand(JDBC)) + ")");
      known.add(REDIS + " (= " + String.join(",", expand(REDIS)) + ")");
      known.add(ZOOKEEPER + " (= " + String.join(",", expand(ZOOKEEPER)) + ")");
      known.add(REDIS_HA + " (= " + String.join(",", expand(REDIS_HA)) + ")");
      throw new IllegalArgumentException("unknown target '" + name + "'; known: " + String.join(", ", known));
    }
    return name;
  }

  /**
   * A fresh, not yet set up target.
   *
   * @throws IllegalArgumentException naming the known targets if {@code name} is not one
   */
  public static Target create(String name) {
    Supplier<Target> unlisted = UNLISTED.get(name);
    return unlisted != null ? unlisted.get() : REGISTRY.get(check(name)).get();
  }

  /**
   * Makes {@link #create} know {@code name}, which no listing, preset or command line shows: for
   * tests of the harness, whose targets run in the test's JVM ({@code -f 0}).
   */
  public static void registerUnlisted(String name, Supplier<Target> factory) {
    UNLISTED.put(name, factory);
  }
}

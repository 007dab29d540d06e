package dev.dlock.lab;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Opens a scheme by its lab id. Why one place: the worker, the coordinator and the report must
 * agree on what each id means. {@code S2-h2} has no lock at all (the flash workload updates the
 * stock optimistically), so it is not opened here: ask {@link #optimistic} first.
 */
public final class Schemes {
  /** The id of the optimistic update, which takes no lock. */
  public static final String OPTIMISTIC = "S2-h2";

  /** The ids served by a dlock lock through the public API. */
  public static final Set<String> LIBRARY = Set.of("S1-h2", "S1-pg", "S3-pg", "S8", "S10", "S12", "S12-ens", "S13",
      "S14", "S14-wait");

  /**
   * The ids served by a peer library through its public API, as its users drive it, in the
   * report's order: Redisson's RLock and RFencedLock, Curator's InterProcessMutex, ShedLock's JDBC
   * provider, Spring Integration's JDBC and Redis lock registries.
   */
  public static final Set<String> PEERS = Collections.unmodifiableSet(new LinkedHashSet<>(List.of(
      "redisson", "redisson-fenced", "curator", "shedlock-jdbc", "spring-jdbc", "spring-redis")));

  /** The lease of {@link #open(String, String, String, Duration, Runnable, Runnable)}. */
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

  private Schemes() {}

  /** Whether {@code id} is the lock-free optimistic update, which {@link #open} refuses. */
  public static boolean optimistic(String id) {
    return OPTIMISTIC.equals(id);
  }

  /** As {@link #open(String, String, String, Duration, Duration, Runnable, Runnable)} with a 30 s library lease. */
  public static Scheme open(String id, String url, String process, Duration clockOffset,
      Runnable onWake, Runnable gapHook) throws Exception {
    return open(id, url, process, DEFAULT_LEASE, clockOffset, onWake, gapHook);
  }

  /**
   * Connects scheme {@code id} to {@code url} as {@code process}.
   *
   * @param lease       the watchdog lease of a library lock (dlock's client lease), and the lease a
   *                    peer is configured with (its watchdog, session, time to live or lockAtMostFor)
   * @param clockOffset added to the client clock of S5 ({@code skew})
   * @param onWake      called for every wake-up of a waiter (S11, S12, S13, S13-naive)
   * @param gapHook     called by S4 between SETNX and EXPIRE, and by S8-wrong between GET and DEL
   * @throws IllegalArgumentException for an unknown id, or {@code S2-h2}, which has no lock
   */
  public static Scheme open(String id, String url, String process, Duration lease, Duration clockOffset,
      Runnable onWake, Runnable gapHook) throws Exception {
    if (LIBRARY.contains(id)) {
      return new LibraryScheme(url, process, lease, id.equals("S13"), onWake);
    }
    return switch (id) {
      case "none" -> new NoLock();
      case "S4" -> new SetnxThenExpire(url, process, gapHook);
      case "S5" -> new ClockValueLock(url, process, clockOffset);
      case "S6" -> new LuaSetnxExpire(url, process);
      case "S7" -> new SetNxPx(url, process);
      case "S8-wrong" -> new GetThenDel(url, process, gapHook);
      case "S11" -> new HerdLock(url, process, onWake);
      case "S13-naive" -> new NaiveReadWrite(url, process, onWake);
      case "redisson" -> new RedissonScheme(url, process, lease, false);
      case "redisson-fenced" -> new RedissonScheme(url, process, lease, true);
      case "curator" -> new CuratorScheme(url, process, lease);
      case "shedlock-jdbc" -> new ShedLockScheme(url, process, lease);
      case "spring-jdbc" -> SpringJdbcScheme.open(url, process, lease);
      case "spring-redis" -> SpringRedisScheme.open(url, process, lease);
      case OPTIMISTIC -> throw new IllegalArgumentException(
          "scheme S2-h2 takes no lock: the flash workload updates the stock optimistically");
      default -> throw new IllegalArgumentException("unknown scheme id '" + id + "'");
    };
  }

  /**
   * Refuses an acquire whose lease is not the one a peer was configured with: a peer's lease is
   * set once per client (a watchdog, a session, a registry's time to live), as its users set it.
   */
  static void checkLease(String id, Duration configured, Duration asked) {
    if (!configured.equals(asked)) {
      throw new IllegalArgumentException("scheme " + id + " was configured with a lease of " + configured
          + " and cannot grant one of " + asked);
    }
  }
}

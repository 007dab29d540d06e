package dev.dlock.lab;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The lab's matrices. The quick one holds one cell per claim of the articles and of dlock's README;
 * the full one crosses every scheme with every fault that can act on it.
 */
public final class Plan {
  /** Each scheme's backend: the server its workers use, and the name {@code --schemes} also takes. */
  static final Map<String, String> BACKEND = Map.ofEntries(
      Map.entry("none", "h2"), Map.entry("S1-h2", "h2"), Map.entry("S2-h2", "h2"),
      Map.entry("S1-pg", "pg"), Map.entry("S3-pg", "pg"),
      Map.entry("S4", "redis"), Map.entry("S5", "redis"), Map.entry("S6", "redis"), Map.entry("S7", "redis"),
      Map.entry("S8-wrong", "redis"), Map.entry("S8", "redis"), Map.entry("S10", "redlock"),
      Map.entry("S11", "zk"), Map.entry("S12", "zk"), Map.entry("S13", "zk"), Map.entry("S13-naive", "zk"),
      Map.entry("redisson", "redis"), Map.entry("redisson-fenced", "redis"), Map.entry("curator", "zk"),
      Map.entry("shedlock-jdbc", "pg"), Map.entry("spring-jdbc", "pg"), Map.entry("spring-redis", "redis"),
      Map.entry("S14", "sentinel"), Map.entry("S14-wait", "sentinel"),
      Map.entry("S12-ens", "zk-ensemble"));

  private static final List<String> REDIS_LAB = List.of("S4", "S5", "S6", "S7", "S8-wrong");

  /** Names a user may write for the faults, each the same as its id. */
  static final Map<String, String> FAULT_NAMES = Map.ofEntries(
      Map.entry("kill-holder", "F1"),
      Map.entry("kill-in-gap", "F1-gap"),
      Map.entry("pause-holder", "F2"),
      Map.entry("restart-server", "F3"),
      Map.entry("restart-server-aof", "F3-aof"),
      Map.entry("pause-server", "F8"),
      Map.entry("clock-skew", "skew"),
      Map.entry("clock-jump", "F7"),
      Map.entry("failover", "F4"),
      Map.entry("partition", "F6"),
      Map.entry("partition-majority", "F6-maj"),
      Map.entry("partition-minority", "F6-min"),
      Map.entry("kill-leader", "F5"),
      Map.entry("kill-holder-server", "F5-holder"));

  private Plan() {}

  /** One cell per claim: what {@code dlock lab} runs by default. */
  public static List<CellSpec> quick() {
    return List.of(
        new CellSpec("none", "none", "critical"),
        new CellSpec("none", "none", "flash"),
        new CellSpec("S2-h2", "none", "flash"),
        new CellSpec("S1-h2", "none", "flash"),
        new CellSpec("S4", "F1-gap", "critical"),
        new CellSpec("S5", "skew", "critical"),
        new CellSpec("S5", "F7", "critical"),
        new CellSpec("S6", "F2", "critical"),
        new CellSpec("S7", "F2", "critical"),
        new CellSpec("S8-wrong", "F2", "critical"),
        new CellSpec("S8", "F1", "critical"),
        new CellSpec("S8", "F2", "critical"),
        new CellSpec("S8", "F3", "critical"),
        new CellSpec("S8", "F3-aof", "critical"),
        new CellSpec("S8", "F8", "critical"),
        new CellSpec("S7", "F6", "critical"),
        new CellSpec("S8", "F6", "critical"),
        new CellSpec("S1-pg", "F2", "critical"),
        new CellSpec("S1-pg", "F8", "critical"),
        new CellSpec("S3-pg", "F1", "critical"),
        new CellSpec("S10", "F2", "critical"),
        new CellSpec("S10", "F6-maj", "critical"),
        new CellSpec("S10", "F6-min", "critical"),
        new CellSpec("S10", "F7", "critical"),
        new CellSpec("S11", "none", "critical"),
        new CellSpec("S12", "none", "critical"),
        new CellSpec("S12", "F8", "critical"),
        new CellSpec("S12-ens", "F5", "critical"),
        new CellSpec("S12-ens", "F6-min", "critical"),
        new CellSpec("S13-naive", "none", "readwrite"),
        new CellSpec("S13", "none", "readwrite"),
        new CellSpec("redisson", "F2", "critical"),
        new CellSpec("redisson-fenced", "F2", "critical"),
        new CellSpec("curator", "F2", "critical"),
        new CellSpec("S14", "F4", "critical"),
        new CellSpec("S14-wait", "F4", "critical"));
  }

  /** Every scheme under every fault that can act on it. */
  public static List<CellSpec> full() {
    List<CellSpec> cells = new ArrayList<>();
    cells.add(new CellSpec("none", "none", "critical"));
    cells.add(new CellSpec("none", "none", "flash"));
    // S2 holds nothing a fault could catch: a buyer that dies or stalls only retries or is gone.
    cells.add(new CellSpec("S2-h2", "none", "flash"));
    for (String f : List.of("none", "F1", "F2")) {
      cells.add(new CellSpec("S1-h2", f, "flash"));
    }
    List<String> redis = new ArrayList<>(REDIS_LAB);
    redis.add("S8");
    for (String s : redis) {
      for (String f : List.of("none", "F1", "F2", "F3", "F3-aof", "F6", "F8")) {
        cells.add(new CellSpec(s, f, "critical"));
      }
    }
    cells.add(new CellSpec("S4", "F1-gap", "critical"));
    cells.add(new CellSpec("S5", "skew", "critical"));
    cells.add(new CellSpec("S5", "F7", "critical"));
    for (String s : List.of("S1-pg", "S3-pg", "S11", "S12")) {
      for (String f : List.of("none", "F1", "F2", "F3", "F6", "F8")) {
        cells.add(new CellSpec(s, f, "critical"));
      }
    }
    for (String f : List.of("none", "F1", "F2", "F6", "F6-maj", "F6-min", "F7")) {
      cells.add(new CellSpec("S10", f, "critical"));
    }
    for (String f : List.of("none", "F1", "F2", "F5", "F5-holder", "F6-maj", "F6-min")) {
      cells.add(new CellSpec("S12-ens", f, "critical"));
    }
    for (String s : List.of("S13-naive", "S13")) {
      for (String f : List.of("none", "F1", "F2", "F3", "F8")) {
        cells.add(new CellSpec(s, f, "readwrite"));
      }
    }
    for (String s : List.of("S14", "S14-wait")) {
      for (String f : List.of("none", "F1", "F2", "F4")) {
        cells.add(new CellSpec(s, f, "critical"));
      }
    }
    // Every peer is on a server the lab restarts and pauses, so all five faults can act on each.
    for (String s : Schemes.PEERS) {
      for (String f : List.of("none", "F1", "F2", "F3", "F8")) {
        cells.add(new CellSpec(s, f, "critical"));
      }
    }
    return cells;
  }

  /**
   * The cells of {@code plan} whose scheme or backend is in {@code schemes} and whose fault is in
   * {@code faults} (ids, or names such as {@code pause-holder}); an empty set selects all. Unknown
   * names are an error that names them.
   */
  public static List<CellSpec> select(List<CellSpec> plan, Set<String> schemes, Set<String> faults) {
    Set<String> known = new LinkedHashSet<>(BACKEND.keySet());
    known.addAll(BACKEND.values());
    for (String s : schemes) {
      if (!known.contains(s)) {
        throw new IllegalArgumentException("--schemes: unknown scheme or backend '" + s + "'; known: " + known);
      }
    }
    Set<String> faultIds = new LinkedHashSet<>();
    for (String f : faults) {
      String id = FAULT_NAMES.getOrDefault(f, f);
      if (!CellSpec.FAULTS.contains(id)) {
        throw new IllegalArgumentException("--faults: unknown fault '" + f + "'; known: " + CellSpec.FAULTS
            + " or " + new TreeSet<>(FAULT_NAMES.keySet()));
      }
      faultIds.add(id);
    }
    List<CellSpec> chosen = new ArrayList<>();
    for (CellSpec c : plan) {
      boolean scheme = schemes.isEmpty() || schemes.contains(c.scheme()) || schemes.contains(BACKEND.get(c.scheme()));
      if (scheme && (faultIds.isEmpty() || faultIds.contains(c.fault()))) {
        chosen.add(c);
      }
    }
    if (chosen.isEmpty()) {
      throw new IllegalArgumentException("no cell of the matrix has a scheme in " + schemes + " and a fault in " + faults);
    }
    return chosen;
  }

  /**
   * The server a cell's workers use: F3-aof runs the Redis schemes on a server with AOF always, and
   * F7 runs Redlock on nodes one of which has a clock that jumps.
   */
  static String server(CellSpec cell) {
    String backend = BACKEND.get(cell.scheme());
    if (backend == null) {
      throw new IllegalArgumentException("unknown scheme '" + cell.scheme() + "'");
    }
    if (ClockJump.onServer(cell)) {
      return "redlock-clock";
    }
    return backend.equals("redis") && cell.fault().equals("F3-aof") ? "redis-aof" : backend;
  }
}

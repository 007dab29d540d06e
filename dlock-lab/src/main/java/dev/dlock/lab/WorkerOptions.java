package dev.dlock.lab;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command line of a {@link Worker}. Why a class of its own: the coordinator builds this line,
 * and every option it may pass, and every check of it, is in one place.
 */
record WorkerOptions(String scheme, String url, String process, Path history, String workload,
    String lock, long leaseMs, long waitMs, long workMs, long durationMs, String resource,
    long clockOffsetMs, boolean gap, long gapAfterMs, long gapMs, boolean gapBlind, boolean gapBeforeWrite,
    String role) {

  static final Set<String> WORKLOADS = Set.of("critical", "flash", "readwrite");
  private static final List<String> REQUIRED = List.of("--scheme", "--process", "--history",
      "--workload", "--lock", "--lease-ms", "--wait-ms", "--work-ms", "--duration-ms", "--resource");
  private static final Set<String> VALUED = Set.of("--scheme", "--url", "--process", "--history",
      "--workload", "--lock", "--lease-ms", "--wait-ms", "--work-ms", "--duration-ms", "--resource",
      "--clock-offset-ms", "--gap-after-ms", "--gap-ms", "--role");

  static WorkerOptions parse(String[] args) {
    Map<String, String> given = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (name.equals("--gap") || name.equals("--gap-blind") || name.equals("--gap-before-write")) {
        given.put(name, "true");
      } else if (!VALUED.contains(name)) {
        throw new IllegalArgumentException("unknown option '" + name + "'");
      } else if (i + 1 == args.length) {
        throw new IllegalArgumentException("option " + name + " needs a value");
      } else if (given.put(name, args[++i]) != null) {
        throw new IllegalArgumentException("option " + name + " is given twice");
      }
    }
    for (String name : REQUIRED) {
      if (!given.containsKey(name)) {
        throw new IllegalArgumentException("option " + name + " is required");
      }
    }
    String scheme = given.get("--scheme");
    if (!given.containsKey("--url") && !scheme.equals("none") && !Schemes.optimistic(scheme)) {
      throw new IllegalArgumentException("option --url is required for scheme " + scheme);
    }
    String workload = given.get("--workload");
    if (!WORKLOADS.contains(workload)) {
      throw new IllegalArgumentException("--workload must be critical, flash or readwrite, was '" + workload + "'");
    }
    String role = given.get("--role");
    if (workload.equals("readwrite") != (role != null)) {
      throw new IllegalArgumentException("--role goes with the readwrite workload and only there; workload "
          + workload + ", role " + role);
    }
    if (role != null && !role.equals("reader") && !role.equals("writer")) {
      throw new IllegalArgumentException("--role must be reader or writer, was '" + role + "'");
    }
    boolean gap = given.containsKey("--gap");
    for (String option : List.of("--gap-after-ms", "--gap-ms")) {
      if (!gap && given.containsKey(option)) {
        throw new IllegalArgumentException(option + " goes with --gap only");
      }
    }
    if (given.containsKey("--gap-before-write") && !gap) {
      throw new IllegalArgumentException("--gap-before-write goes with --gap only");
    }
    if (given.containsKey("--gap-blind") && !given.containsKey("--gap-ms")) {
      throw new IllegalArgumentException("--gap-blind goes with --gap-ms only");
    }
    if (Schemes.optimistic(scheme) && !workload.equals("flash")) {
      throw new IllegalArgumentException("scheme S2-h2 runs the flash workload only, not " + workload);
    }
    return new WorkerOptions(scheme, given.getOrDefault("--url", ""), given.get("--process"),
        Path.of(given.get("--history")), workload, given.get("--lock"),
        millis(given, "--lease-ms", 1), millis(given, "--wait-ms", 0), millis(given, "--work-ms", 0),
        millis(given, "--duration-ms", 0), given.get("--resource"),
        given.containsKey("--clock-offset-ms") ? millis(given, "--clock-offset-ms", Long.MIN_VALUE) : 0, gap,
        given.containsKey("--gap-after-ms") ? millis(given, "--gap-after-ms", 0) : 0,
        given.containsKey("--gap-ms") ? millis(given, "--gap-ms", 1) : 0, given.containsKey("--gap-blind"),
        given.containsKey("--gap-before-write"), role);
  }

  private static long millis(Map<String, String> given, String name, long min) {
    String value = given.get(name);
    long n;
    try {
      n = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a number of milliseconds, was '" + value + "'");
    }
    if (n < min) {
      throw new IllegalArgumentException(name + " must be at least " + min + ", was " + n);
    }
    return n;
  }
}

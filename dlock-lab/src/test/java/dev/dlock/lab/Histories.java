package dev.dlock.lab;

import java.util.ArrayList;
import java.util.List;

/** Builds synthetic histories for the tests, with times in milliseconds after a fixed base. */
final class Histories {
  static final long MS = 1_000_000L;
  static final long BASE = 7_000_000_000L;

  private final List<Event> events = new ArrayList<>();

  static long at(double ms) {
    return BASE + Math.round(ms * MS);
  }

  /** A critical-workload run of {@code scheme} under {@code fault}, from 0 to {@code endMs}. */
  static RunInfo info(String scheme, String fault, double endMs) {
    return new RunInfo(scheme, fault, "critical", 1, BASE, at(endMs), 100 * MS, -1, -1);
  }

  Histories add(String process, String op, String type, long token, double ms, String info) {
    events.add(new Event(process, op, type, "L", token, at(ms), info));
    return this;
  }

  Histories acquire(String p, double ms, long token) {
    return add(p, "acquire", "ok", token, ms, "");
  }

  Histories enter(String p, double ms) {
    return add(p, "enter", "ok", -1, ms, "");
  }

  Histories enterShared(String p, double ms) {
    return add(p, "enter", "ok", -1, ms, "shared");
  }

  Histories exit(String p, double ms) {
    return add(p, "exit", "ok", -1, ms, "");
  }

  /** acquire at {@code from}, enter just after, exit at {@code to}, release just after. */
  Histories hold(String p, double from, double to, long token) {
    return acquire(p, from, token).enter(p, from + 0.1).exit(p, to).release(p, to + 0.1, p);
  }

  Histories write(String p, double ms, long token, boolean ok) {
    return add(p, "write", ok ? "ok" : "fail", token, ms, "");
  }

  Histories release(String p, double ms, String freed) {
    return add(p, "release", "ok", -1, ms, "freed=" + freed);
  }

  Histories buy(String p, double ms) {
    return add(p, "buy", "ok", -1, ms, "5");
  }

  Histories wake(String p, double ms) {
    return add(p, "wake", "info", -1, ms, "");
  }

  Histories fault(double from, double to, String info) {
    add("injector", "fault", "invoke", -1, from, info);
    return add("injector", "fault", "ok", -1, to, info);
  }

  List<Event> events() {
    return events;
  }

  CellResult check(RunInfo info) {
    return Checker.check(info, events);
  }
}

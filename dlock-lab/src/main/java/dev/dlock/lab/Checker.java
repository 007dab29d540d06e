package dev.dlock.lab;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Reads one run's merged history and says what it shows.
 *
 * <p>Why the verdict is not simply "two holders at once": with fencing tokens, two holders after a
 * pause are expected (a lease ran out while its holder slept) and what must stay safe is the
 * resource, which rejects the late writer; so for a fenced scheme only harm to the resource (a stale
 * write accepted, an oversold or lost item, a release that freed someone else's lock) is unsafe.
 * Without tokens nothing can reject the late writer, so two overlapping holders are the failure.
 */
public final class Checker {
  private static final String INJECTOR = "injector";

  private Checker() {}

  /**
   * One time a worker was inside its critical section.
   *
   * @param process the worker
   * @param start   its {@code enter ok}
   * @param end     its {@code exit}, its kill, or its last event
   * @param shared  whether it was a read hold
   * @param token   the token of the worker's latest grant before it entered, or -1
   */
  public record Hold(String process, long start, long end, boolean shared, long token) {
    /** Whether this and {@code other} are by different workers, not both reads, and overlap in time. */
    public boolean conflicts(Hold other) {
      return !process.equals(other.process) && !(shared && other.shared)
          && start < other.end && other.start < end;
    }
  }

  /**
   * One fault window of the injector.
   *
   * @param fault  the fault id
   * @param target the worker or {@code server} it acted on
   * @param start  its {@code fault invoke} (equal to end for a kill)
   * @param end    its {@code fault ok}
   */
  public record Window(String fault, String target, long start, long end) {}

  /**
   * Checks the events of all processes of one run, in any order (they are sorted by time, ties
   * keeping their order). A write by a worker that has no grant before it cannot be judged and is
   * not counted as stale.
   */
  public static CellResult check(RunInfo info, List<Event> events) {
    Objects.requireNonNull(info, "info");
    List<Event> sorted = sorted(events);
    List<Hold> holds = holds(sorted);
    int violations = 0;
    List<Hold> byStart = new ArrayList<>(holds);
    byStart.sort(Comparator.comparingLong(Hold::start));
    for (int i = 0; i < byStart.size(); i++) {
      for (int j = i + 1; j < byStart.size() && byStart.get(j).start() < byStart.get(i).end(); j++) {
        if (byStart.get(i).conflicts(byStart.get(j))) {
          violations++;
        }
      }
    }
    long overlapNanos = 0;
    for (long[] span : overlaps(holds)) {
      overlapNanos += span[1] - span[0];
    }

    int staleAccepted = 0;
    int staleRejected = 0;
    int sold = 0;
    int foreign = 0;
    int grants = 0;
    int releases = 0;
    int wakeups = 0;
    boolean tokens = fenced(sorted);
    Map<String, Integer> ownGrant = new HashMap<>();
    List<Long> grantTimes = new ArrayList<>();
    List<Long> windowEnds = new ArrayList<>();
    for (Event e : sorted) {
      String op = e.op();
      String type = e.type();
      if (op.equals("acquire") && type.equals("ok")) {
        ownGrant.put(e.process(), grants);
        grantTimes.add(e.nanos());
        grants++;
      } else if (op.equals("write") && (type.equals("ok") || type.equals("fail"))) {
        Integer own = ownGrant.get(e.process());
        // Every grant after the writer's own latest one is another worker's: the writer was superseded.
        if (own != null && grants - 1 > own) {
          if (type.equals("ok")) {
            staleAccepted++;
          } else {
            staleRejected++;
          }
        }
      } else if (op.equals("buy") && type.equals("ok")) {
        sold++;
      } else if (op.equals("release") && type.equals("ok")) {
        releases++;
        String freed = freed(e.info());
        if (!freed.isEmpty() && !freed.equals(e.process())) {
          foreign++;
        }
      } else if (op.equals("wake")) {
        wakeups++;
      } else if (op.equals("fault") && type.equals("ok") && e.process().equals(INJECTOR)) {
        windowEnds.add(e.nanos());
      }
    }

    int oversold = info.flash() ? Math.max(0, sold - info.stock()) : 0;
    int lost = info.flash() ? Math.max(0, sold - (info.stock() - info.stockLeft())) : 0;

    long recovery = -1;
    boolean deadlock = false;
    for (long end : windowEnds) {
      long next = firstAtOrAfter(grantTimes, end);
      if (next < 0 || next > info.endNanos()) {
        deadlock = true;
      } else {
        recovery = Math.max(recovery, next - end);
      }
    }

    long length = info.endNanos() - info.startNanos();
    // A flash sale counts what it is for, items sold: the optimistic scheme (S2) grants nothing.
    double perSecond = length > 0 ? (info.flash() ? sold : grants) / (length / 1e9) : 0;
    Verdict verdict;
    if (deadlock) {
      verdict = Verdict.STUCK;
    } else if (staleAccepted > 0 || foreign > 0 || oversold > 0 || lost > 0 || (violations > 0 && !tokens)) {
      verdict = Verdict.UNSAFE;
    } else {
      verdict = Verdict.SAFE;
    }
    return new CellResult(info, violations, overlapNanos, staleAccepted, staleRejected, oversold, lost,
        foreign, recovery, deadlock, grants, releases, wakeups, perSecond, verdict, sorted);
  }

  /**
   * How often holders were told they lost the lock, and how often too late: after another worker
   * was granted the lock since the told holder's own grant.
   *
   * @param told times a holder learned of its loss ({@code lost}, or an {@code exit} marked lost)
   * @param late of those, the ones that came after someone else's grant
   */
  public record LossNotices(int told, int late) {}

  /**
   * The loss notices of time-sorted {@code events}. Why it matters: a holder that learns of its
   * loss only after another holder exists has already worked unprotected; dlock promises to tell it
   * before the server can grant the lock again.
   */
  public static LossNotices lossNotices(List<Event> sorted) {
    Map<String, Integer> ownGrant = new HashMap<>();
    Map<String, Boolean> noticed = new HashMap<>();
    int grants = 0;
    int told = 0;
    int late = 0;
    for (Event e : sorted) {
      if (e.op().equals("acquire") && e.type().equals("ok")) {
        ownGrant.put(e.process(), grants++);
        noticed.put(e.process(), false);
      } else if ((e.op().equals("lost") || (e.op().equals("exit") && "lost".equals(e.info())))
          && ownGrant.containsKey(e.process()) && !noticed.get(e.process())) {
        noticed.put(e.process(), true); // a lost event and its exit are one notice
        told++;
        if (grants - 1 > ownGrant.get(e.process())) {
          late++;
        }
      }
    }
    return new LossNotices(told, late);
  }

  /**
   * Whether the run's grants carried fencing tokens: some {@code acquire ok} has a token of 0 or
   * more. Without one the resource cannot tell a late writer, so overlapping holds are unsafe, and
   * the reports say "no token" where a fenced run counts stale writes rejected.
   */
  public static boolean fenced(List<Event> events) {
    for (Event e : events) {
      if (e.op().equals("acquire") && e.type().equals("ok") && e.token() >= 0) {
        return true;
      }
    }
    return false;
  }

  /** {@code events} sorted by time; events at the same time keep their order. */
  public static List<Event> sorted(List<Event> events) {
    List<Event> sorted = new ArrayList<>(events);
    sorted.sort(Comparator.comparingLong(Event::nanos));
    return sorted;
  }

  /**
   * The holds of time-sorted {@code events}: each {@code enter ok} paired with its process's next
   * {@code exit}; an unclosed hold ends at the process's kill, else at the process's last event.
   */
  public static List<Hold> holds(List<Event> sorted) {
    Map<String, List<Long>> kills = new HashMap<>();
    for (Window w : windows(sorted)) {
      if (w.fault().equals("F1") || w.fault().equals("F1-gap")) {
        kills.computeIfAbsent(w.target(), k -> new ArrayList<>()).add(w.end());
      }
    }
    Map<String, Long> last = new HashMap<>();
    Map<String, Long> token = new HashMap<>();
    Map<String, Event> open = new LinkedHashMap<>();
    List<Hold> holds = new ArrayList<>();
    for (Event e : sorted) {
      String p = e.process();
      last.put(p, e.nanos());
      if (e.op().equals("acquire") && e.type().equals("ok")) {
        token.put(p, e.token());
      } else if (e.op().equals("enter") && e.type().equals("ok")) {
        Event before = open.put(p, e);
        if (before != null) { // entered again without an exit: the earlier hold ends here
          holds.add(hold(before, e.nanos(), token));
        }
      } else if (e.op().equals("exit")) {
        Event enter = open.remove(p);
        if (enter != null) {
          holds.add(hold(enter, e.nanos(), token));
        }
      }
    }
    for (Event enter : open.values()) {
      long end = last.get(enter.process());
      for (long kill : kills.getOrDefault(enter.process(), List.of())) {
        if (kill >= enter.nanos()) {
          end = kill;
          break;
        }
      }
      holds.add(hold(enter, end, token));
    }
    holds.sort(Comparator.comparingLong(Hold::start));
    return holds;
  }

  private static Hold hold(Event enter, long end, Map<String, Long> token) {
    return new Hold(enter.process(), enter.nanos(), end, "shared".equals(enter.info()),
        token.getOrDefault(enter.process(), -1L));
  }

  /** The merged spans, sorted, during which two or more conflicting holds overlap. */
  public static List<long[]> overlaps(List<Hold> holds) {
    List<Hold> byStart = new ArrayList<>(holds);
    byStart.sort(Comparator.comparingLong(Hold::start));
    List<long[]> spans = new ArrayList<>();
    for (int i = 0; i < byStart.size(); i++) {
      Hold a = byStart.get(i);
      for (int j = i + 1; j < byStart.size() && byStart.get(j).start() < a.end(); j++) {
        Hold b = byStart.get(j);
        if (a.conflicts(b)) {
          spans.add(new long[] {Math.max(a.start(), b.start()), Math.min(a.end(), b.end())});
        }
      }
    }
    spans.sort(Comparator.comparingLong(s -> s[0]));
    List<long[]> merged = new ArrayList<>();
    for (long[] s : spans) {
      long[] top = merged.isEmpty() ? null : merged.get(merged.size() - 1);
      if (top != null && s[0] <= top[1]) {
        top[1] = Math.max(top[1], s[1]);
      } else {
        merged.add(Arrays.copyOf(s, 2));
      }
    }
    return merged;
  }

  /**
   * The injector's fault windows in time-sorted {@code events}: a {@code fault invoke} closed by the
   * next {@code fault ok} with the same info; a {@code fault ok} with no open window is a kill.
   */
  public static List<Window> windows(List<Event> sorted) {
    Map<String, Long> open = new HashMap<>();
    List<Window> windows = new ArrayList<>();
    for (Event e : sorted) {
      if (!e.process().equals(INJECTOR) || !e.op().equals("fault")) {
        continue;
      }
      if (e.type().equals("invoke")) {
        open.putIfAbsent(e.info(), e.nanos());
      } else if (e.type().equals("ok")) {
        Long start = open.remove(e.info());
        String[] words = e.info().trim().split("\\s+", 2);
        windows.add(new Window(words[0], words.length > 1 ? words[1] : "",
            start == null ? e.nanos() : start, e.nanos()));
      }
    }
    return windows;
  }

  private static String freed(String info) {
    return info != null && info.startsWith("freed=") ? info.substring("freed=".length()).trim() : "";
  }

  private static long firstAtOrAfter(List<Long> times, long t) {
    int lo = 0;
    int hi = times.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (times.get(mid) < t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < times.size() ? times.get(lo) : -1;
  }
}

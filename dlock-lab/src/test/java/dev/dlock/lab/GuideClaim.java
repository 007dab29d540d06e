package dev.dlock.lab;

import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The claims a guide's lab citation may make ({@link GuideCheck}), and what each needs of the
 * recorded line. The vocabulary is closed so that a cell cannot say more than the record can check.
 * Some claims are read by their column: a check mark under "mutual exclusion" means no harm, under
 * "no deadlock" a grant after the fault.
 */
final class GuideClaim {
  private static final Pattern BACK = Pattern.compile("back within (\\d+(?:\\.\\d+)?) (ms|s)");
  private static final Pattern FAULT = Pattern.compile("F[0-9][A-Za-z0-9-]*|none|skew");

  private static final Map<String, Predicate<RecordedCell>> GENERAL = Map.of(
      "two holders", l -> l.violations() > 0,
      "one holder", l -> l.violations() == 0,
      "refused the late write", l -> l.staleRejected() > 0 && l.staleAccepted() == 0,
      "took a late write", l -> l.staleAccepted() > 0,
      "freed another's lock", l -> l.foreignReleases() > 0,
      "oversold", l -> l.oversold() > 0 || l.lostUpdates() > 0,
      "never back", RecordedCell::deadlock);

  static final String VOCABULARY = "safe, unsafe, stuck, " + String.join(", ", new TreeSet<>(GENERAL.keySet()))
      + ", back within N ms|s; '✓ F'/'✗ F' under mutual exclusion and no deadlock; 'F'/'not F' under"
      + " tolerated faults; yes/no under fencing token; any of them followed by ' (expected)' for a cell not yet recorded";

  private GuideClaim() {}

  /** Why {@code claim} is not a claim of the vocabulary, or null. */
  static String grammar(String column, String claim, String fault) {
    if (verdict(claim) != null || BACK.matcher(claim).matches() || GENERAL.containsKey(claim)) {
      return null;
    }
    if (claim.startsWith("✓ ") || claim.startsWith("✗ ")) {
      if (!column.equals("mutual exclusion") && !column.equals("no deadlock")) {
        return "✓ and ✗ with a fault belong to the columns 'mutual exclusion' and 'no deadlock'";
      }
      return claim.substring(2).equals(fault) ? null : "the claim names " + claim.substring(2) + ", the citation " + fault;
    }
    if (column.equals("tolerated faults") && FAULT.matcher(claim.replaceFirst("^not ", "")).matches()) {
      return claim.replaceFirst("^not ", "").equals(fault) ? null
          : "the claim names " + claim.replaceFirst("^not ", "") + ", the citation " + fault;
    }
    if (column.equals("fencing token") && (claim.equals("yes") || claim.equals("no"))) {
      return null;
    }
    return "'" + claim + "' is not a lab claim: " + VOCABULARY;
  }

  /** Why the recorded {@code line} does not bear {@code claim} out, or null. */
  static String disagreement(String column, String claim, RecordedCell line) {
    Verdict v = verdict(claim);
    String recorded = line.key() + " records " + line.verdict().word() + " (violations " + line.violations()
        + ", stale accepted/rejected " + line.staleAccepted() + "/" + line.staleRejected() + ", foreign releases "
        + line.foreignReleases() + ", deadlock " + line.deadlock() + ", worst recovery "
        + (Double.isNaN(line.worstRecoveryMs()) ? "-" : line.worstRecoveryMs() + " ms") + ", fenced " + line.fenced() + ")";
    boolean holds;
    if (v != null) {
      holds = line.verdict() == v;
    } else if (GENERAL.containsKey(claim)) {
      holds = GENERAL.get(claim).test(line);
    } else if (BACK.matcher(claim).matches()) {
      Matcher m = BACK.matcher(claim);
      m.matches();
      double limitMs = Double.parseDouble(m.group(1)) * (m.group(2).equals("s") ? 1000 : 1);
      holds = !line.deadlock() && !Double.isNaN(line.worstRecoveryMs()) && line.worstRecoveryMs() <= limitMs;
    } else if (claim.startsWith("✓ ") || claim.startsWith("✗ ")) {
      boolean held = column.equals("mutual exclusion") ? line.verdict() != Verdict.UNSAFE : !line.deadlock();
      holds = held == claim.startsWith("✓");
    } else if (column.equals("fencing token")) {
      holds = line.fenced() == claim.equals("yes");
    } else {
      holds = (line.verdict() == Verdict.SAFE) != claim.startsWith("not ");
    }
    return holds ? null : recorded + ", which does not bear out '" + claim + "'";
  }

  private static Verdict verdict(String claim) {
    for (Verdict v : Verdict.values()) {
      if (v.word().equals(claim)) {
        return v;
      }
    }
    return null;
  }
}

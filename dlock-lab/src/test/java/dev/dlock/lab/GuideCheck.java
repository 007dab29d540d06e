package dev.dlock.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks the guide (docs/choosing-a-lock.md) against what it cites: the lab record, the bench
 * README's result tables, the plan's rows, the repository's files and a closed list of vendors'
 * documentation. Kept apart from {@link GuideTest} so the test can feed it broken guides too and
 * see each kind of failure named.
 *
 * <p>Every cell of the guide's two tables but the first holds at least one citation, a Markdown
 * link {@code [claim](target "title")}; links in the text around the tables are checked the same
 * way. The target decides its kind:
 * <ul>
 *   <li><b>lab</b>: {@code lab-matrix.tsv}, titled {@code "ROW × FAULT"}; the claim must agree with that line;
 *   <li><b>bench</b>: {@code ../dlock-bench/README.md}, titled {@code "W1 target"}; the claim is its
 *       {@code ops/s} or {@code p50}, or {@code not measured} when the README has no such row;
 *   <li><b>code</b>: a {@code .java} file of the repository, optionally titled with a method or class
 *       declared in it;
 *   <li><b>doc</b>: any other file of the repository, with an optional {@code #anchor} that must be a
 *       heading (or an {@code <a id>}) of that Markdown file;
 *   <li><b>vendor</b>: an {@code https://} page under one of {@link #VENDORS}.
 * </ul>
 */
final class GuideCheck {
  /** The first table's columns: what each lock is, by construction. */
  static final List<String> PROMISES = List.of("lock", "reentrant", "blocking", "fair", "owner-only release",
      "renewal", "fencing token", "loss signal");
  /** The second table's columns: what the lab and the bench showed. */
  static final List<String> SHOWN = List.of("lock", "mutual exclusion", "no deadlock", "available",
      "tolerated faults", "fast: W1 lock+unlock", "handoff: W4 p50");
  /** The only outside pages a cell may cite: the peers' own documentation. */
  static final List<String> VENDORS = List.of("https://redisson.pro/docs/", "https://github.com/Netflix/curator/wiki/",
      "https://curator.apache.org/", "https://github.com/lukas-krecan/ShedLock", "https://docs.spring.io/spring-integration/");

  private static final String LAB = "lab-matrix.tsv";
  private static final String BENCH = "../dlock-bench/README.md";
  private static final String EXPECTED = " (expected)";
  private static final Pattern LINK = Pattern.compile("\\[([^\\]]+)\\]\\(([^\\s)]+)(?:\\s+\"([^\"]*)\")?\\)");
  private static final Pattern ROW_ID = Pattern.compile("<a id=\"([^\"]+)\"></a>");
  private static final Pattern BENCH_ROW = Pattern.compile(
      "^\\|\\s*(W[1-4])\\s*\\|\\s*([A-Za-z0-9._-]+)\\s*\\|\\s*\\d+\\s*\\|\\s*([0-9,.]+)\\s*\\|\\s*([^|]+?)\\s*\\|.*");
  /** Words that claim a result, allowed only as the text of a citation. */
  private static final List<String> CLAIM_WORDS = List.of("safe", "unsafe", "stuck", "✓", "✗");

  private final Path docs;
  private final LabRecord record;
  private final Map<String, String[]> benchRows = new HashMap<>();
  private final String benchText;

  /**
   * @param root   the repository's root, against which code and doc citations are looked up
   * @param record the lab record that lab citations name
   * @param bench  the text of dlock-bench/README.md
   */
  GuideCheck(Path root, LabRecord record, String bench) {
    this.docs = root.resolve("docs");
    this.record = record;
    this.benchText = bench;
    for (String line : bench.split("\n")) {
      Matcher m = BENCH_ROW.matcher(line.strip());
      if (m.matches()) {
        benchRows.put(m.group(1) + " " + m.group(2), new String[] {m.group(3), m.group(4)});
      }
    }
  }

  /** One row of one of the guide's tables: its anchor and its cells by column name. */
  record Row(String table, String id, Map<String, String> cells) {}

  /**
   * Everything wrong with {@code guide}, each problem naming the table, row, column and citation.
   *
   * @param planRows the anchors every table must have a row for: one per scheme of {@link Plan#full()}
   *                 and per scheme or backend the guide promises
   */
  List<String> problems(String guide, Collection<String> planRows) {
    List<String> problems = new ArrayList<>();
    Map<String, List<Row>> tables = tables(guide, problems);
    for (List<String> columns : List.of(PROMISES, SHOWN)) {
      if (!tables.containsKey(name(columns))) {
        problems.add("no table with the columns " + columns);
      }
    }
    List<String> order = null;
    for (Map.Entry<String, List<Row>> t : tables.entrySet()) {
      List<String> ids = t.getValue().stream().map(Row::id).toList();
      Set<String> seen = new HashSet<>();
      for (String id : ids) {
        if (!seen.add(id)) {
          problems.add("table '" + t.getKey() + "': two rows with the anchor '" + id + "'");
        }
      }
      for (String id : planRows) {
        if (!seen.contains(id)) {
          problems.add("table '" + t.getKey() + "': no row for '" + id + "' (a scheme of the lab's plan, or one the guide must have): add <a id=\""
              + id + "\"></a>");
        }
      }
      if (order == null) {
        order = ids;
      } else if (!order.equals(ids)) {
        problems.add("the tables list their rows differently: " + order + " and " + ids);
      }
      for (Row row : t.getValue()) {
        row.cells().forEach((column, text) -> checkCell(row, column, text, problems));
      }
    }
    int n = 0;
    for (String line : guide.split("\n")) {
      n++;
      Matcher m = LINK.matcher(line);
      while (!line.startsWith("|") && m.find()) {
        String why = check("", m.group(1).strip(), m.group(2), m.group(3));
        if (why != null) {
          problems.add("line " + n + ": " + m.group() + ": " + why);
        }
      }
    }
    return problems;
  }

  private Map<String, List<Row>> tables(String guide, List<String> problems) {
    Map<String, List<Row>> tables = new LinkedHashMap<>();
    String[] lines = guide.split("\n");
    for (int i = 0; i + 1 < lines.length; i++) {
      if (!lines[i].startsWith("|") || !lines[i + 1].startsWith("|---")) {
        continue;
      }
      List<String> header = cells(lines[i]);
      if (!header.get(0).equals("lock")) {
        continue;
      }
      List<String> expected = header.size() > 1 && header.get(1).equals(SHOWN.get(1)) ? SHOWN : PROMISES;
      String table = name(expected);
      if (!header.equals(expected)) {
        problems.add("a table's columns are " + header + ", expected " + expected);
        continue;
      }
      List<Row> rows = new ArrayList<>();
      for (i += 2; i < lines.length && lines[i].startsWith("|"); i++) {
        List<String> cells = cells(lines[i]);
        Matcher id = ROW_ID.matcher(cells.get(0));
        if (!id.find()) {
          problems.add("table '" + table + "': the row '" + cells.get(0) + "' has no <a id=\"...\"></a>");
          continue;
        }
        if (cells.size() != expected.size()) {
          problems.add("table '" + table + "', row " + id.group(1) + ": " + cells.size()
              + " cells, expected " + expected.size());
          continue;
        }
        Map<String, String> byColumn = new LinkedHashMap<>();
        for (int c = 1; c < cells.size(); c++) {
          byColumn.put(expected.get(c), cells.get(c));
        }
        rows.add(new Row(table, id.group(1), byColumn));
      }
      tables.put(table, rows);
    }
    return tables;
  }

  /** A table's name in messages: "promises" or "shown". */
  private static String name(List<String> columns) {
    return columns == SHOWN ? "shown" : "promises";
  }

  private static List<String> cells(String line) {
    String inner = line.strip();
    inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
    List<String> cells = new ArrayList<>();
    for (String c : inner.split("\\|", -1)) {
      cells.add(c.strip());
    }
    return cells;
  }

  private void checkCell(Row row, String column, String text, List<String> problems) {
    String where = "table '" + row.table() + "', row " + row.id() + ", column '" + column + "'";
    Matcher m = LINK.matcher(text);
    int links = 0;
    while (m.find()) {
      links++;
      String claim = m.group(1).strip();
      String target = m.group(2);
      String title = m.group(3);
      String why = check(column, claim, target, title);
      if (why != null) {
        problems.add(where + ": " + m.group() + ": " + why);
      }
    }
    if (links == 0) {
      problems.add(where + ": '" + text + "' cites nothing");
    }
    String outside = LINK.matcher(text).replaceAll(" ");
    for (String word : CLAIM_WORDS) {
      if (Pattern.compile("(?<![\\w-])" + Pattern.quote(word) + "(?![\\w-])").matcher(outside).find()) {
        problems.add(where + ": '" + word + "' outside a citation, in '" + text + "'");
      }
    }
  }

  /** Why the citation is wrong, or null. */
  private String check(String column, String claim, String target, String title) {
    if (target.equals(LAB) && (title != null || !column.isEmpty())) { // the text may link the file itself
      return lab(column, claim, title);
    }
    if (target.equals(BENCH) && title != null) {
      return bench(claim, title);
    }
    if (target.startsWith("https://")) {
      return VENDORS.stream().anyMatch(target::startsWith) ? null
          : "an outside page not under the vendors' documentation " + VENDORS;
    }
    if (target.contains("://") || target.startsWith("/")) {
      return "a citation must be a lab line, a bench row, a file of the repository or a vendor's page";
    }
    return file(target, title);
  }

  private String lab(String column, String claim, String title) {
    if (title == null || !title.contains(" × ")) {
      return "a lab citation needs a title \"ROW × FAULT\"";
    }
    String row = title.substring(0, title.lastIndexOf(" × "));
    String fault = title.substring(title.lastIndexOf(" × ") + 3);
    Optional<RecordedCell> line = record.find(row, fault);
    boolean expected = claim.endsWith(EXPECTED);
    String said = expected ? claim.substring(0, claim.length() - EXPECTED.length()) : claim;
    String grammar = GuideClaim.grammar(column, said, fault);
    if (grammar != null) {
      return grammar;
    }
    if (expected) {
      return line.isPresent() ? title + " is recorded now (" + line.get().verdict().word()
          + "): drop '(expected)' from the claim" : null;
    }
    if (line.isEmpty()) {
      return title + " is not in docs/lab-matrix.tsv (refresh it: " + LabRecord.REFRESH
          + ", or mark a claim not yet run with '(expected)')";
    }
    return GuideClaim.disagreement(column, said, line.get());
  }

  private String bench(String claim, String title) {
    String[] words = title.split(" ");
    if (words.length != 2 || !words[0].matches("W[1-4]")) {
      return "a bench citation needs a title \"W1 target\"";
    }
    if (!benchText.contains("`" + words[1] + "`")) {
      return "dlock-bench/README.md names no target `" + words[1] + "`";
    }
    String[] row = benchRows.get(title);
    if (claim.equals("not measured")) {
      return row == null ? null : "dlock-bench/README.md has the row " + title + " now (" + row[0]
          + " ops/s, p50 " + row[1] + "): cite its number";
    }
    if (row == null) {
      return "dlock-bench/README.md has no result row " + title + " (say 'not measured')";
    }
    if (claim.endsWith(" ops/s")) {
      String n = claim.substring(0, claim.length() - " ops/s".length());
      return n.equals(row[0]) ? null : "the README's " + title + " has " + row[0] + " ops/s, not " + n;
    }
    if (claim.endsWith(" p50")) {
      String p = claim.substring(0, claim.length() - " p50".length());
      return p.equals(row[1]) ? null : "the README's " + title + " has p50 " + row[1] + ", not " + p;
    }
    return "a bench claim is 'N ops/s', 'X p50' or 'not measured', not '" + claim + "'";
  }

  private String file(String target, String title) {
    int hash = target.indexOf('#');
    String path = hash < 0 ? target : target.substring(0, hash);
    Path file = docs.resolve(path).normalize();
    if (!Files.isRegularFile(file)) {
      return "no file " + file;
    }
    String text = read(file);
    if (path.endsWith(".java")) {
      if (title != null && !Pattern.compile("(\\b" + Pattern.quote(title) + "\\s*\\(|class\\s+" + Pattern.quote(title)
          + "\\b)").matcher(text).find()) {
        return file.getFileName() + " declares no method or class '" + title + "'";
      }
      return null;
    }
    if (hash >= 0 && !anchors(text).contains(target.substring(hash + 1))) {
      return file.getFileName() + " has no heading or anchor '" + target.substring(hash + 1) + "'";
    }
    return null;
  }

  /** The anchors of a Markdown text: GitHub's slug of each heading, and every {@code <a id>}. */
  static Set<String> anchors(String markdown) {
    Set<String> anchors = new LinkedHashSet<>();
    for (String line : markdown.split("\n")) {
      if (line.startsWith("#")) {
        anchors.add(slug(line.replaceFirst("^#+\\s*", "")));
      }
      Matcher id = ROW_ID.matcher(line);
      while (id.find()) {
        anchors.add(id.group(1));
      }
    }
    return anchors;
  }

  /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
  static String slug(String heading) {
    StringBuilder b = new StringBuilder();
    for (char ch : heading.strip().toLowerCase(Locale.ROOT).toCharArray()) {
      if (Character.isLetterOrDigit(ch) || ch == '-' || ch == '_') {
        b.append(ch);
      } else if (ch == ' ') {
        b.append('-');
      }
    }
    return b.toString();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}

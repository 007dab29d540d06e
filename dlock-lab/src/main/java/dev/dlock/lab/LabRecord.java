package dev.dlock.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A lab run as a plain file that tools and tests read: comment lines ({@code # }) saying when, with
 * which settings and by which command it was made, a line of column names, then one tab-separated
 * line per cell ({@link RecordedCell}). The guide ({@code docs/choosing-a-lock.md}) cites its lines,
 * and the verdict tests compare their live runs with it ({@link #disagreement}).
 */
public final class LabRecord {
  /** Where the committed record lives, from the repository's root. */
  public static final String FILE = "docs/lab-matrix.tsv";

  /** The command that makes the committed record again. */
  public static final String REFRESH = "./dlock lab --full --record " + FILE;

  private final String source;
  private final List<String> comments;
  private final Map<List<String>, RecordedCell> cells = new LinkedHashMap<>();

  /**
   * @param source   what the record was read from or is for, named in messages
   * @param comments the comment lines, without their {@code "# "}
   * @param cells    one per row and fault
   * @throws IllegalArgumentException naming a row and fault given twice
   */
  public LabRecord(String source, List<String> comments, List<RecordedCell> cells) {
    this.source = source;
    this.comments = List.copyOf(comments);
    for (RecordedCell c : cells) {
      if (this.cells.put(List.of(c.row(), c.fault()), c) != null) {
        throw new IllegalArgumentException(source + ": " + c.key() + " is recorded twice");
      }
    }
  }

  /** The record of {@code cells}, with one comment line. */
  public static LabRecord of(String source, List<Cell> cells, String comment) {
    return new LabRecord(source, List.of(comment), cells.stream().map(RecordedCell::of).toList());
  }

  /** The comment line of a run: its date, its settings and the command that made it. */
  public static String comment(Instant when, LabSettings s, String command) {
    return when.truncatedTo(ChronoUnit.SECONDS) + "  settings: workers=" + s.workers()
        + " duration=" + s.duration().toMillis() + "ms lease=" + s.lease().toMillis() + "ms work="
        + s.work().toMillis() + "ms acquire-wait=" + s.acquireWait().toMillis() + "ms fault-at="
        + s.faultAt().toMillis() + "ms stock=" + s.stock() + "  command: " + command;
  }

  /**
   * This record with {@code newer}'s cells in place of its own of the same row and fault, and
   * {@code newer}'s other cells after them; the comments of both, so the file says what made each part.
   */
  public LabRecord merge(LabRecord newer) {
    Map<List<String>, RecordedCell> merged = new LinkedHashMap<>(cells);
    merged.putAll(newer.cells);
    List<String> allComments = new ArrayList<>(comments);
    allComments.addAll(newer.comments);
    return new LabRecord(newer.source, allComments, new ArrayList<>(merged.values()));
  }

  /** The file's text: comments, column names, a line per cell. */
  public String text() {
    StringBuilder b = new StringBuilder();
    comments.forEach(c -> b.append("# ").append(c).append('\n'));
    b.append(String.join("\t", RecordedCell.COLUMNS)).append('\n');
    cells.values().forEach(c -> b.append(c.tsv()).append('\n'));
    return b.toString();
  }

  /** Writes {@link #text} to {@code file} as UTF-8, making its folder if need be. */
  public void write(Path file) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, text(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the lab record " + file, e);
    }
  }

  /** Reads a file written by {@link #write}. */
  public static LabRecord read(Path file) {
    try {
      return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the lab record " + file, e);
    }
  }

  /**
   * Reads the text of a record.
   *
   * @param source names the text in error messages, with the line number
   * @throws IllegalArgumentException naming the line and what is wrong with it
   */
  public static LabRecord parse(String text, String source) {
    List<String> comments = new ArrayList<>();
    List<RecordedCell> lines = new ArrayList<>();
    boolean header = false;
    int n = 0;
    for (String line : text.split("\n", -1)) {
      n++;
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("#")) {
        comments.add(line.substring(1).strip());
      } else if (!header) {
        if (!line.equals(String.join("\t", RecordedCell.COLUMNS))) {
          throw new IllegalArgumentException(source + " line " + n + ": expected the column names "
              + RecordedCell.COLUMNS + " separated by tabs, found '" + line + "'");
        }
        header = true;
      } else {
        lines.add(RecordedCell.parse(line, source + " line " + n));
      }
    }
    if (!header) {
      throw new IllegalArgumentException(source + ": no line of column names");
    }
    return new LabRecord(source, comments, lines);
  }

  /** The line of {@code row} and {@code fault}, if recorded. */
  public Optional<RecordedCell> find(String row, String fault) {
    return Optional.ofNullable(cells.get(List.of(row, fault)));
  }

  /** Every line, in the file's order. */
  public List<RecordedCell> cells() {
    return List.copyOf(cells.values());
  }

  /** The comment lines, without their {@code "# "}. */
  public List<String> comments() {
    return comments;
  }

  /**
   * Why a live run does not agree with this record, or empty if it does: its verdict differs from
   * the recorded one, or its cell is not recorded at all.
   */
  public Optional<String> disagreement(CellResult run) {
    String row = Cell.row(run.info());
    String fault = run.info().fault();
    String live = run.verdict().word();
    Optional<RecordedCell> recorded = find(row, fault);
    if (recorded.isEmpty()) {
      return Optional.of(row + " × " + fault + " (this run: " + live + ") is not in " + source
          + "; record it: " + REFRESH + " (or just this cell: ./dlock lab --full --schemes "
          + run.info().scheme() + " --faults " + fault + " --record " + FILE + " --merge)");
    }
    String was = recorded.get().verdict().word();
    if (!was.equals(live)) {
      return Optional.of(row + " × " + fault + ": this run's verdict is " + live + ", " + source
          + " records " + was + "; if the change is meant, refresh the record: " + REFRESH);
    }
    return Optional.empty();
  }
}

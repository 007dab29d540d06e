package dev.dlock.bench.scale;

import java.util.ArrayList;
import java.util.List;

/** A header and rows of cells, as aligned text for the terminal and as Markdown. */
public final class Table {
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  public Table(String... header) {
    this.header = List.of(header);
  }

  public void add(String... cells) {
    rows.add(List.of(cells));
  }

  public String text() {
    int[] width = new int[header.size()];
    List<List<String>> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows);
    for (List<String> line : all) {
      for (int c = 0; c < width.length && c < line.size(); c++) {
        width[c] = Math.max(width[c], line.get(c).length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (int n = 0; n < all.size(); n++) {
      List<String> line = all.get(n);
      for (int c = 0; c < line.size(); c++) {
        // The first column (the backend) to the left, numbers to the right.
        String fmt = c == 0 ? "%-" + width[c] + "s" : "%" + width[c] + "s";
        sb.append(c == 0 ? "" : " | ").append(String.format(fmt, line.get(c)));
      }
      sb.append('\n');
      if (n == 0) {
        for (int c = 0; c < width.length; c++) {
          sb.append(c == 0 ? "" : "-+-").append("-".repeat(width[c]));
        }
        sb.append('\n');
      }
    }
    return sb.toString();
  }

  public String markdown() {
    StringBuilder sb = new StringBuilder("| ").append(String.join(" | ", header)).append(" |\n|");
    for (int c = 0; c < header.size(); c++) {
      sb.append(c == 0 ? "---|" : "---:|");
    }
    sb.append('\n');
    for (List<String> r : rows) {
      sb.append("| ").append(String.join(" | ", r)).append(" |\n");
    }
    return sb.toString();
  }
}

package dev.dlock.bench.scale;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import picocli.CommandLine.Option;

/**
 * The options every bench subcommand shares, as a picocli mixin: where its Markdown section goes,
 * and help. The section is appended, so the subcommands' tables gather beside the JMH table.
 */
public final class ResultsFile {
  @Option(names = "--out", paramLabel = "FILE", description = "Markdown file the results are appended to"
      + " (default dlock-bench/target/bench-results.md)")
  Path out;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
  boolean help;

  /** Whether help was asked for. */
  public boolean help() {
    return help;
  }

  /**
   * Appends {@code section} to {@code --out}, or else to {@code defaultOut}; false, with the reason
   * on {@code progress}, if it cannot.
   *
   * @param command the subcommand, for the message, such as "bench scale"
   */
  public boolean append(Path defaultOut, String section, String command, PrintStream progress) {
    Path file = file(defaultOut);
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, section, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      return true;
    } catch (IOException e) {
      progress.println(command + ": cannot append to " + file + ": " + e);
      return false;
    }
  }

  /** The file {@link #append} writes to. */
  public Path file(Path defaultOut) {
    return (out != null ? out : defaultOut).toAbsolutePath();
  }
}

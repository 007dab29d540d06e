package dev.dlock.lab;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The committed lab record ({@value LabRecord#FILE}) as the verdict tests see it. Why: the guide
 * cites the record, so a verdict the build's live runs show and the verdict the guide cites must
 * not drift apart; every verdict test checks its run against the record with {@link #assertAgrees}.
 */
final class Recorded {
  private static LabRecord record;

  private Recorded() {}

  /** Fails, naming the row, the fault, both verdicts and the refresh command, unless the record agrees with {@code run}. */
  static void assertAgrees(CellResult run) {
    record().disagreement(run).ifPresent(why -> fail(why));
  }

  /** The committed record, read once. */
  static synchronized LabRecord record() {
    if (record == null) {
      record = LabRecord.read(root().resolve(LabRecord.FILE));
    }
    return record;
  }

  /** The repository's root: the nearest folder at or above the working directory that holds dlock-lab. */
  static Path root() {
    Path start = Path.of("").toAbsolutePath();
    for (Path p = start; p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("dlock-lab")) && Files.isRegularFile(p.resolve("pom.xml"))) {
        return p;
      }
    }
    throw new IllegalStateException("no repository root (a folder with pom.xml and dlock-lab) at or above " + start);
  }
}

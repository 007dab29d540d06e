package dev.dlock.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The wall clock of a process the lab starts, which the lab can step forward while the process
 * runs, as an NTP step or an operator does (fault F7). The process runs with libfaketime preloaded
 * (Debian's {@code faketime} package), which reads the clock's offset from a file on every call;
 * {@link #jump} writes a larger offset there. Only the wall clock moves ({@code CLOCK_REALTIME}:
 * {@code System.currentTimeMillis}, the expiry of a Redis key); the monotonic clock, which the
 * histories are stamped with and the timers run on, does not.
 *
 * <p>Why a file and not libfaketime's {@code FAKETIME} variable: an environment is fixed when the
 * process starts, and the jump must come mid-run, while a holder believes in its lease.
 */
final class FakeClock {
  /** The library's file name, in a {@code faketime} folder of a library directory. */
  static final String LIBRARY = "libfaketime.so.1";

  private final Path library;
  private final Path file;
  private Duration offset = Duration.ZERO;

  private FakeClock(Path library, Path file) {
    this.library = library;
    this.file = file;
  }

  /**
   * A clock at offset 0 whose offset file is {@code dir/faketime}; {@code dir} is created if
   * missing.
   *
   * @throws IllegalStateException when libfaketime is not installed, naming the package to install
   */
  static FakeClock create(Path dir) {
    FakeClock clock = new FakeClock(library(), dir.resolve("faketime"));
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + dir + " for a fake clock: " + e, e);
    }
    clock.write();
    return clock;
  }

  /**
   * What a process needs in its environment to run on this clock. Why each: the file is read again
   * on every call ({@code FAKETIME_NO_CACHE}), so a jump is seen at once; the monotonic clock is
   * left alone ({@code FAKETIME_DONT_FAKE_MONOTONIC}), because libfaketime's relative mode would
   * otherwise make it count from the epoch. And libfaketime 0.9.10 (Debian 12) mistakes a real
   * monotonic deadline for a faked one in {@code pthread_cond_timedwait} unless its "forced
   * monotonic fix" is off: every timed park of a JVM then returns at once and its threads spin.
   */
  Map<String, String> environment() {
    Map<String, String> env = new LinkedHashMap<>();
    String preload = System.getenv("LD_PRELOAD");
    env.put("LD_PRELOAD", preload == null || preload.isBlank() ? library.toString() : library + ":" + preload);
    env.put("FAKETIME_TIMESTAMP_FILE", file.toString());
    env.put("FAKETIME_NO_CACHE", "1");
    env.put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
    env.put("FAKETIME_FORCE_MONOTONIC_FIX", "0");
    return env;
  }

  /** Steps the clock forward by {@code by}; every process on it sees the new time at its next call. */
  synchronized void jump(Duration by) {
    if (by == null || by.isNegative() || by.isZero()) {
      throw new IllegalArgumentException("a clock jump goes forward by a positive time, was " + by);
    }
    offset = offset.plus(by);
    write();
  }

  /** How far ahead of the real wall clock this clock is, all jumps together. */
  synchronized Duration offset() {
    return offset;
  }

  /** The offset file, as libfaketime reads it: {@code +<seconds>}, written whole at once. */
  private void write() {
    Path tmp = file.resolveSibling(file.getFileName() + ".new");
    try {
      Files.writeString(tmp, "+" + BigDecimal.valueOf(offset.toMillis(), 3).toPlainString() + "\n");
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the fake clock's offset to " + file + ": " + e, e);
    }
  }

  /** Where libfaketime is: the first of {@link #folders()} that holds it. */
  static Path library() {
    return find(folders());
  }

  /**
   * The first of {@code folders} that holds {@link #LIBRARY}.
   *
   * @throws IllegalStateException naming the folders looked in and Debian's {@code faketime} package
   */
  static Path find(List<Path> folders) {
    for (Path dir : folders) {
      if (Files.isRegularFile(dir.resolve(LIBRARY))) {
        return dir.resolve(LIBRARY);
      }
    }
    throw new IllegalStateException("libfaketime (" + LIBRARY + ") is not installed: looked in " + folders
        + "; the clock-jump fault F7 needs it: install Debian's faketime package (apt-get install faketime)");
  }

  /**
   * Where Debian and others put libfaketime: a {@code faketime} folder in a library directory, the
   * multiarch ones ({@code /usr/lib/x86_64-linux-gnu}, ...) first.
   */
  static List<Path> folders() {
    List<Path> dirs = new ArrayList<>();
    for (String lib : List.of("/usr/lib", "/usr/local/lib", "/lib")) {
      try (Stream<Path> entries = Files.list(Path.of(lib))) {
        entries.filter(p -> p.getFileName().toString().contains("-linux-gnu")).sorted()
            .forEach(p -> dirs.add(p.resolve("faketime")));
      } catch (IOException e) {
        // no such library directory here
      }
      dirs.add(Path.of(lib, "faketime"));
    }
    dirs.add(Path.of("/usr/lib64/faketime"));
    return dirs;
  }

  @Override
  public String toString() {
    return "FakeClock(" + file + ", +" + offset.toMillis() + " ms)";
  }
}

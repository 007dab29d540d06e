package dev.dlock.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Processes as Linux's /proc shows them, read by the tests on their own (not through
 * ProcessGroup), so that a test does not trust the code it checks.
 */
final class Procs {
  private Procs() {}

  /** One process: its state letter (Z for a zombie), process group and session. */
  record Proc(long pid, String state, long pgid, long sid) {}

  static Optional<Proc> of(long pid) {
    String stat;
    try {
      stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    } catch (IOException gone) {
      return Optional.empty(); // NoSuchFileException, or ESRCH when it ends while being read
    }
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Optional.of(new Proc(pid, f[0], Long.parseLong(f[2]), Long.parseLong(f[3])));
  }

  /**
   * SIGKILL to process {@code pid} and to what is left of the group it leads, if any, so that a
   * failing test leaves nothing running.
   */
  static void kill(long pid) throws IOException, InterruptedException {
    if (!livingInGroup(pid).isEmpty()) {
      new ProcessBuilder("kill", "-s", "KILL", "--", "-" + pid).inheritIO().start().waitFor();
    }
    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
  }

  /** The processes of group {@code pgid} that are alive: zombies, which have ended, left out. */
  static List<Proc> livingInGroup(long pgid) {
    List<Proc> living = new ArrayList<>();
    try (DirectoryStream<Path> all = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path dir : all) {
        of(Long.parseLong(dir.getFileName().toString()))
            .filter(p -> p.pgid() == pgid && !p.state().equals("Z"))
            .ifPresent(living::add);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return living;
  }
}

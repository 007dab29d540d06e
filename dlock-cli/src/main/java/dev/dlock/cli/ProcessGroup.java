package dev.dlock.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The command of {@code dlock run} in a process group of its own, so that one signal reaches the
 * command and everything it started, and none of it is left running unprotected once the lock is
 * released.
 *
 * <p>Java can neither create a process group nor send a chosen signal. On Linux the command is
 * started through util-linux's {@code setsid}: a child of the JVM is never a group leader, so
 * {@code setsid} calls setsid(2) and execs the command in place, and the pid Java sees is the
 * command's own, the group id and the session id. A new session rather than only a new group
 * (timeout(1) uses setpgid) because a background group of the terminal's session is stopped by
 * SIGTTIN when it reads the terminal; without a controlling terminal, reading the inherited stdin
 * works. The cost: the command cannot open /dev/tty, and Ctrl-C reaches it only through dlock, which
 * forwards it. Signals go through the POSIX shell's {@code kill} builtin, which takes a negative
 * pid as a group. Which group members are alive is read from /proc, leaving out zombies: an orphan
 * whose new parent does not reap it (a container whose pid 1 is not an init) stays a zombie in the
 * group and would otherwise look alive forever.
 *
 * <p>Where there is no {@code setsid} or no /proc (not Linux), the command runs in dlock's own
 * group and only the command's own process is signalled and waited for.
 */
final class ProcessGroup {
  private static final Path PROC = Path.of("/proc");
  private static final String SHELL = "/bin/sh";

  private final Process process;
  private final boolean grouped;

  private ProcessGroup(Process process, boolean grouped) {
    this.process = process;
    this.grouped = grouped;
  }

  /** Starts {@code command} with dlock's stdin, stdout and stderr. */
  static ProcessGroup start(List<String> command) throws IOException {
    Optional<Path> setsid = Files.isDirectory(PROC) ? executable("setsid") : Optional.empty();
    List<String> line = new ArrayList<>();
    setsid.ifPresent(s -> line.add(s.toString()));
    line.addAll(command);
    return new ProcessGroup(new ProcessBuilder(line).inheritIO().start(), setsid.isPresent());
  }

  /**
   * Where {@code name} is found as execvp(3) would find it: as given if it holds a '/', else in
   * each directory of PATH.
   */
  static Optional<Path> executable(String name) {
    if (name.isEmpty()) {
      return Optional.empty();
    }
    List<Path> candidates = new ArrayList<>();
    if (name.contains("/")) {
      candidates.add(Path.of(name));
    } else {
      String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
      for (String dir : path.split(File.pathSeparator, -1)) {
        candidates.add(Path.of(dir.isEmpty() ? "." : dir, name));
      }
    }
    return candidates.stream()
        .filter(p -> Files.isRegularFile(p) && Files.isExecutable(p))
        .findFirst();
  }

  long pid() {
    return process.pid();
  }

  Process process() {
    return process;
  }

  /**
   * Sends {@code signal} (a name such as TERM) to every process of the group; to the command alone
   * where it has no group of its own. A group that has already ended is not an error. Right after
   * the start, {@code setsid} may not have made the group yet; the signal then goes to the one
   * process there is.
   */
  void signal(String signal) throws IOException, InterruptedException {
    String script = grouped
        ? "kill -s \"$1\" -- \"-$2\" 2>/dev/null || kill -s \"$1\" -- \"$2\" 2>/dev/null"
        : "kill -s \"$1\" -- \"$2\" 2>/dev/null";
    Process kill = new ProcessBuilder(SHELL, "-c", script, "dlock-kill", signal, Long.toString(pid()))
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    kill.waitFor();
  }

  /** True while any process of the group, zombies left out, is still alive. */
  boolean anyAlive() throws IOException {
    if (process.isAlive()) {
      return true;
    }
    if (!grouped) {
      return false;
    }
    try (DirectoryStream<Path> all = Files.newDirectoryStream(PROC, "[0-9]*")) {
      for (Path dir : all) {
        if (livingMember(dir)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether /proc/PID/stat shows a process of this group that is not a zombie. */
  private boolean livingMember(Path dir) {
    String stat;
    try {
      stat = Files.readString(dir.resolve("stat"));
    } catch (IOException ended) {
      return false;
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so read after the last ')'.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ", 4);
    boolean zombie = fields[0].equals("Z") || fields[0].equals("X");
    return !zombie && fields[2].equals(Long.toString(pid()));
  }
}

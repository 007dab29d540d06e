package dev.dlock.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real {@code dlock} process, run as users run it: {@code java -jar dlock.jar}, the jar the build
 * made in the package phase (failsafe passes its path). Its output is collected line by line, so a
 * test waits for a line instead of sleeping.
 */
final class CliProcess implements AutoCloseable {
  /** As the ./dlock launcher runs it: the JIT's first tier only, which halves dlock's start-up. */
  static final String LAUNCHER_FLAGS = "-XX:TieredStopAtLevel=1";

  final Process process;
  final BlockingQueue<String> out = new LinkedBlockingQueue<>();
  final BlockingQueue<String> err = new LinkedBlockingQueue<>();

  /** Every stdout line so far, for {@link #awaitLine}; {@link #out} is consumed by {@link #nextLine}. */
  private final List<String> outSeen = new ArrayList<>();
  private final Thread outPump;
  private final Thread errPump;

  private CliProcess(Process process) {
    this.process = process;
    this.outPump = pump(process.getInputStream(), out, outSeen);
    this.errPump = pump(process.getErrorStream(), err, new ArrayList<>());
  }

  /** The jar under test; failing here means the tests were run without the package phase. */
  static Path jar() {
    String jar = System.getProperty("dlock.jar");
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      throw new IllegalStateException("no dlock jar at '" + jar + "' (system property dlock.jar):"
          + " run these tests with failsafe, e.g. ./mvnw -pl dlock-cli -am verify");
    }
    return Path.of(jar);
  }

  /**
   * Starts {@code dlock ARGS} with {@code home} as its home directory. SIGHUP, SIGINT and SIGTERM
   * start at their defaults, as under a terminal: a build run as a background job of a shell would
   * otherwise hand dlock SIGINT ignored, and the signal tests would test nothing.
   */
  static CliProcess start(Path home, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("env", "--default-signal=HUP,INT,TERM"));
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add(LAUNCHER_FLAGS);
    cmd.add("-Duser.home=" + home);
    cmd.add("-jar");
    cmd.add(jar().toString());
    cmd.addAll(List.of(args));
    return new CliProcess(new ProcessBuilder(cmd).start());
  }

  private static Thread pump(java.io.InputStream in, BlockingQueue<String> lines, List<String> seen) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          synchronized (seen) {
            seen.add(line);
            seen.notifyAll();
          }
          lines.add(line);
        }
      } catch (IOException ignored) {
        // The process ended.
      }
    });
    t.setDaemon(true);
    t.start();
    return t;
  }

  long pid() {
    return process.pid();
  }

  /** The next stdout line, waiting up to a minute for it, or failing at once if the process ended. */
  String nextLine() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() - deadline < 0) {
      String line = out.poll(100, TimeUnit.MILLISECONDS);
      if (line != null) {
        return line;
      }
      if (!process.isAlive() && !outPump.isAlive() && out.isEmpty()) {
        throw new AssertionError("dlock exited with " + process.exitValue() + " before printing a line;"
            + " stderr: " + String.join(" | ", err));
      }
    }
    throw new AssertionError("no output line within 60 s; stderr: " + String.join(" | ", err));
  }

  /**
   * The first stdout line, printed so far or later, that {@code wanted} accepts; waits up to a
   * minute, and fails at once if stdout ends without one.
   */
  String awaitLine(Predicate<String> wanted) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    synchronized (outSeen) {
      for (int next = 0; ; ) {
        for (; next < outSeen.size(); next++) {
          if (wanted.test(outSeen.get(next))) {
            return outSeen.get(next);
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || !outPump.isAlive()) {
          throw new AssertionError("no such line on stdout" + (left <= 0 ? " within 60 s" : "")
              + "; stdout: " + outSeen + "; stderr: " + err);
        }
        TimeUnit.NANOSECONDS.timedWait(outSeen, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
      }
    }
  }

  /** Sends signal {@code name} (TERM, INT, HUP...) to the dlock process itself. */
  void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-s", name, Long.toString(pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new AssertionError("kill -s " + name + " " + pid() + " failed");
    }
  }

  void send(String line) throws IOException {
    OutputStream in = process.getOutputStream();
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  void closeStdin() throws IOException {
    process.getOutputStream().close();
  }

  int exitCode() throws InterruptedException {
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("dlock did not exit within 120 s; stderr: " + String.join(" | ", err));
    }
    return process.exitValue();
  }

  /** All of stderr, once the process has exited and its streams are drained. */
  List<String> errLines() throws InterruptedException {
    exitCode();
    errPump.join(10_000);
    return new ArrayList<>(err);
  }

  /** All of stdout, once the process has exited and its streams are drained. */
  List<String> outLines() throws InterruptedException {
    exitCode();
    outPump.join(10_000);
    synchronized (outSeen) {
      return new ArrayList<>(outSeen);
    }
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}

package dev.dlock.lab;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One worker JVM as the coordinator sees it. A reader thread follows the worker's stdout
 * ({@code READY}, {@code ENTER}, {@code EXIT}, {@code RELEASED}, {@code HELD}, {@code GAP},
 * {@code DONE}) and keeps what the injector needs to know: whether the worker is inside its
 * critical section right now. All workers of a run share one monitor, so the injector can wait
 * for "any worker holds".
 */
final class WorkerProcess {
  private final String name;
  private final Process process;
  private final Path stderr;
  private final Object monitor;
  private boolean ready;
  private boolean holding;
  private int enters;
  private int releases;
  private int kept;
  private long token = -1;
  private boolean gap;
  private boolean ended;

  private WorkerProcess(String name, Process process, Path stderr, Object monitor) {
    this.name = name;
    this.process = process;
    this.stderr = stderr;
    this.monitor = monitor;
  }

  /** Starts {@code dev.dlock.lab.Worker} with {@code args} in a JVM of its own. */
  static WorkerProcess start(String name, List<String> args, Path dir, Object monitor) throws IOException {
    return start(name, args, dir, monitor, Map.of());
  }

  /** As {@link #start(String, List, Path, Object)}, with {@code environment} added to the JVM's (F7's fake clock). */
  static WorkerProcess start(String name, List<String> args, Path dir, Object monitor, Map<String, String> environment)
      throws IOException {
    List<String> command = new ArrayList<>(List.of(javaBin(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-Xmx192m"));
    command.addAll(H2Resource.WORKER_JVM_ARGS);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Worker.class.getName()));
    command.addAll(args);
    Path err = dir.resolve(name + ".err");
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(environment);
    Process p = builder.redirectError(err.toFile()).start();
    WorkerProcess w = new WorkerProcess(name, p, err, monitor);
    Thread reader = new Thread(w::follow, "lab-" + name);
    reader.setDaemon(true);
    reader.start();
    return w;
  }

  private void follow() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        synchronized (monitor) {
          if (line.equals("READY")) {
            ready = true;
          } else if (line.startsWith("ENTER")) {
            holding = true;
            enters++;
            token = Long.parseLong(line.substring("ENTER".length()).trim());
          } else if (line.equals("EXIT")) {
            holding = false;
          } else if (line.equals("RELEASED")) {
            releases++;
          } else if (line.equals("HELD")) {
            kept++;
          } else if (line.equals("GAP")) {
            gap = true;
          }
          monitor.notifyAll();
        }
      }
    } catch (IOException e) {
      // The worker died: ended below says so.
    } finally {
      synchronized (monitor) {
        ended = true;
        holding = false;
        monitor.notifyAll();
      }
    }
  }

  String name() {
    return name;
  }

  long pid() {
    return process.pid();
  }

  /** Callers hold the shared monitor. */
  boolean ready() {
    return ready;
  }

  /** Callers hold the shared monitor. */
  boolean holding() {
    return holding;
  }

  /** How many holds the worker has entered so far. Callers hold the shared monitor. */
  int enters() {
    return enters;
  }

  /** How many holds the worker has released (or tried to) so far. Callers hold the shared monitor. */
  int releases() {
    return releases;
  }

  /** How many times the worker said it stays in a hold ({@link #holdBack}). Callers hold the shared monitor. */
  int kept() {
    return kept;
  }

  /** The token of the worker's latest hold, or -1 before its first. Callers hold the shared monitor. */
  long token() {
    return token;
  }

  /** Callers hold the shared monitor. */
  boolean atGap() {
    return gap;
  }

  /** Callers hold the shared monitor. */
  boolean ended() {
    return ended;
  }

  void go() throws IOException {
    say("GO");
  }

  /** Tells the worker to finish its current hold and stop; a worker already dead is left be. */
  void end() {
    tell("END");
  }

  /**
   * Asks the worker to stay in its current hold, or its next, until {@link #free}: it says
   * {@code HELD} once it does. A worker already dead is left be.
   */
  void holdBack() {
    tell("HOLD");
  }

  /** Lets a worker held back by {@link #holdBack} leave its hold. */
  void free() {
    tell("FREE");
  }

  private void tell(String line) {
    try {
      say(line);
    } catch (IOException e) {
      // Killed by the injector: its stdin is closed, and it has ended.
    }
  }

  private void say(String line) throws IOException {
    OutputStream in = process.getOutputStream();
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  Process process() {
    return process;
  }

  /** The last lines the worker wrote to stderr, for an error message. */
  String stderrTail() {
    try {
      List<String> lines = Files.readAllLines(stderr, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException e) {
      return "(no stderr: " + e.getMessage() + ")";
    }
  }

  private static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}

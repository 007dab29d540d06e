package dev.dlock.zookeeper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A main class of the test classpath in a JVM of its own, for what cannot happen inside the test
 * JVM: a server paused with SIGSTOP (curator-test's servers run in this JVM, which the signal
 * would stop too), or a client whose every log line, at every level, is kept in a file to search.
 * Its stdin is a pipe from this JVM; the mains here exit when it closes, so a child never outlives
 * the test run. Its output goes to a file under {@code java.io.tmpdir} (target/tmp).
 */
final class ChildJvm implements AutoCloseable {
  final Process process;
  final Path output;

  private ChildJvm(Process process, Path output) {
    this.process = process;
    this.output = output;
  }

  static ChildJvm start(Class<?> main, List<String> jvmArgs, String... args) throws IOException {
    Path output = Files.createTempFile(main.getSimpleName() + "-", ".log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
    command.addAll(jvmArgs);
    command.add(main.getName());
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    return new ChildJvm(p, output);
  }

  /** Sends a signal, such as {@code STOP} or {@code CONT}, to the child. */
  void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + name + " " + process.pid() + " failed");
    }
  }

  /** Waits for the child to exit on its own; its exit code. */
  int await(Duration patience) throws InterruptedException {
    if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("the child JVM " + process.pid() + " did not exit within " + patience
          + "; its output: " + output());
    }
    return process.exitValue();
  }

  String output() {
    try {
      return Files.readString(output, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /** Kills the child, paused or not. */
  @Override
  public void close() throws InterruptedException {
    process.destroyForcibly(); // SIGKILL ends a stopped process too
    process.waitFor(10, TimeUnit.SECONDS);
  }
}

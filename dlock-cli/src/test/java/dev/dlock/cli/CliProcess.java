package dev.dlock.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code dlock} process: a separate JVM on the test classpath, its output collected line by
 * line so a test can wait for a line instead of sleeping.
 */
final class CliProcess implements AutoCloseable {
  final Process process;
  final BlockingQueue<String> out = new LinkedBlockingQueue<>();
  final BlockingQueue<String> err = new LinkedBlockingQueue<>();

  private final Thread outPump;
  private final Thread errPump;

  private CliProcess(Process process) {
    this.process = process;
    this.outPump = pump(process.getInputStream(), out);
    this.errPump = pump(process.getErrorStream(), err);
  }

  static CliProcess start(Path home, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Duser.home=" + home);
    cmd.add("-cp");
    cmd.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    cmd.add(Main.class.getName());
    cmd.addAll(List.of(args));
    return new CliProcess(new ProcessBuilder(cmd).start());
  }

  private static Thread pump(java.io.InputStream in, BlockingQueue<String> lines) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
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
    return new ArrayList<>(out);
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}

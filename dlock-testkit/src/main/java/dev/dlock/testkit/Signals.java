package dev.dlock.testkit;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Sends real signals to processes, for fault tests: {@code STOP} pauses a server as a long GC
 * pause would, {@code CONT} resumes it, {@code KILL} crashes it. Uses kill(1), since the JDK can
 * send only TERM and KILL.
 */
public final class Signals {
  private Signals() {}

  /**
   * Sends {@code signal} (a name such as {@code STOP}, {@code CONT}, {@code KILL}) to {@code pid},
   * and fails loudly if kill(1) refuses.
   *
   * @param signal the signal's name, without {@code SIG}
   * @param pid    the process
   */
  public static void send(String signal, long pid) {
    if (!signal.matches("[A-Z0-9]+")) {
      throw new IllegalArgumentException("signal must be a name such as STOP, was '" + signal + "'");
    }
    if (pid <= 1) {
      throw new IllegalArgumentException("pid must be a process of the test's own, was " + pid);
    }
    try {
      // Not inheritIO: a test JVM's standard streams may be its runner's channel.
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .redirectErrorStream(true).start();
      String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + said);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run kill(1) to send SIG" + signal + " to " + pid, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted sending SIG" + signal + " to " + pid, e);
    }
  }
}

package dev.dlock.lab;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Sends the lab's faults as real signals: {@code STOP} freezes a process as a long GC pause or a
 * frozen VM would, {@code CONT} lets it run again, {@code KILL} crashes it.
 *
 * <p>Why kill(1): the JDK can send only TERM and KILL, and a pause needs STOP and CONT. The
 * arguments are checked first, so a bad pid or a signal with options in it never reaches a shell
 * command line.
 */
public final class Faults {
  private Faults() {}

  /** Freezes {@code pid} with SIGSTOP. */
  public static void stop(long pid) {
    signal(pid, "STOP");
  }

  /** Lets a frozen {@code pid} run again with SIGCONT. */
  public static void cont(long pid) {
    signal(pid, "CONT");
  }

  /** Crashes {@code pid} with SIGKILL ({@code kill -9}). */
  public static void kill(long pid) {
    signal(pid, "KILL");
  }

  /**
   * Sends {@code signal} to {@code pid} and fails if kill(1) refuses.
   *
   * @param pid    a process of the lab's own; never 0, 1 or negative (a process group)
   * @param signal a plain signal name without {@code SIG}, such as {@code STOP}
   * @throws IllegalArgumentException naming the bad value
   * @throws IllegalStateException    naming the pid, the signal and kill's own message
   */
  public static void signal(long pid, String signal) {
    if (pid <= 1) {
      throw new IllegalArgumentException("pid must be a process the lab started (> 1), was " + pid);
    }
    if (signal == null || !signal.matches("[A-Z][A-Z0-9]*")) {
      throw new IllegalArgumentException("signal must be a plain name such as STOP, CONT or KILL, was '"
          + signal + "'");
    }
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .redirectErrorStream(true).start();
      String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!kill.waitFor(10, TimeUnit.SECONDS)) {
        kill.destroyForcibly();
        throw new IllegalStateException("kill -" + signal + " " + pid + " did not return within 10 s");
      }
      if (kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid + " failed (exit " + kill.exitValue()
            + "): " + said);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run kill(1) to send SIG" + signal + " to " + pid + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted sending SIG" + signal + " to " + pid, e);
    }
  }
}

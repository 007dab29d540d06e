package dev.dlock.cli;

import java.util.List;
import java.util.function.Consumer;
import sun.misc.Signal;

/**
 * Takes SIGTERM, SIGINT and SIGHUP from the JVM, whose default is to run shutdown hooks and exit
 * 128+N at once, which would leave the command running and the lock held until its lease runs out.
 *
 * <p>{@code sun.misc.Signal} (module jdk.unsupported, present in every JDK since 9 and kept on
 * purpose for this use) is the only way Java has to learn which signal arrived. A shutdown hook
 * was the other candidate: it cannot tell TERM from INT or HUP, so it could not forward the same
 * signal, and the JVM is already exiting while it runs. With a handler the JVM keeps running; dlock
 * forwards the signal, waits for the command, releases the lock and exits normally. A signal that
 * was ignored when the JVM started (nohup) stays ignored, as the JVM leaves it; the command inherits
 * that too. Where a signal does not exist or the JVM reserves it ({@code -Xrs}), the JVM's default
 * stays.
 */
final class Signals {
  /** What dlock forwards: what a terminal, a service manager or a scheduler sends to stop a job. */
  static final List<String> FORWARDED = List.of("TERM", "INT", "HUP");

  private Signals() {}

  /** A signal by name (TERM) and number (15). */
  record Received(String name, int number) {}

  /** From now on, each forwarded signal calls {@code handler}, on a thread of its own, instead of exiting. */
  static void take(Consumer<Received> handler) {
    for (String name : FORWARDED) {
      try {
        Signal.handle(new Signal(name), s -> handler.accept(new Received(s.getName(), s.getNumber())));
      } catch (IllegalArgumentException unavailable) {
        // Unknown on this OS, or reserved by the JVM: it keeps its default action.
      }
    }
  }
}

package dev.dlock.bench.scale;

import java.io.PrintStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** Prints a progress line every few seconds while a long step runs, until closed. */
final class Progress implements AutoCloseable {
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "bench-scale-progress");
    t.setDaemon(true);
    return t;
  });

  Progress(PrintStream out, long everySeconds, Supplier<String> line) {
    timer.scheduleAtFixedRate(() -> out.println("bench:   " + line.get()), everySeconds, everySeconds,
        TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}

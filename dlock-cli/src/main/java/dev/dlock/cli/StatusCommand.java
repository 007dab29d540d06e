package dev.dlock.cli;

import dev.dlock.LockClient;
import dev.dlock.spi.LockInfo;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code dlock status}: who holds a lock, with its token and time left, for one name or all. */
@Command(name = "status", description = "Show the holder, token and time left of NAME, or of every held lock.",
    mixinStandardHelpOptions = true)
final class StatusCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--url", description = "Lock backend URL (default: embedded H2 in ~/.dlock).")
  String url;

  @Parameters(arity = "0..1", paramLabel = "NAME", converter = Converters.Name.class, description = "One lock name; all held locks if omitted.")
  String name;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (LockClient client = Connection.open(url, null)) {
      List<LockInfo> locks = name == null ? client.inspectAll() : client.inspect(name).stream().toList();
      if (locks.isEmpty()) {
        out.println(name == null ? "no lock is held" : "'" + name + "' is free");
        return 0;
      }
      String format = "%-32s %-40s %12s %10s%n";
      out.printf(format, "NAME", "HOLDER", "TOKEN", "LEFT");
      for (LockInfo lock : locks) {
        out.printf(format, lock.name(), lock.owner(), lock.token(), left(lock.remaining()));
      }
      return 0;
    }
  }

  private static String left(Duration d) {
    long ms = d.toMillis();
    return ms < 10_000 ? ms + "ms" : d.toSeconds() + "s";
  }
}

package dev.dlock.cli;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.LockTimeoutException;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code dlock run}: holds a lock while a command runs. The command inherits stdin, stdout and
 * stderr, and its exit status becomes dlock's. The lease is renewed while the command runs; if it
 * is lost anyway, the command gets SIGTERM, because it is no longer protected.
 */
@Command(name = "run", description = "Run COMMAND while holding the lock NAME.", mixinStandardHelpOptions = true)
final class RunCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--url", description = "Lock backend URL (default: embedded H2 in ~/.dlock).")
  String url;

  @Option(names = "--name", required = true, description = "The lock name.")
  String name;

  @Option(names = "--wait", converter = DurationConverter.class,
      description = "How long to wait for a busy lock, e.g. 0s, 500ms, 2m (default: as long as it takes).")
  Duration wait;

  @Option(names = "--lease", converter = DurationConverter.class,
      description = "The lease, renewed every third of it while the command runs (default: 30s).")
  Duration lease;

  @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "The command and its arguments, after --.")
  List<String> command;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    try (LockClient client = Connection.open(url, lease)) {
      DistributedLock lock = client.lock(name);
      Lease held;
      try {
        held = wait == null ? lock.acquire() : lock.acquire(wait);
      } catch (LockTimeoutException busy) {
        err.println("dlock: lock '" + name + "' is busy: " + busy.getMessage());
        return ExitCodes.BUSY;
      }
      return runHolding(held, err);
    }
  }

  private int runHolding(Lease held, PrintWriter err) throws InterruptedException {
    Process process;
    try {
      process = new ProcessBuilder(command).inheritIO().start();
    } catch (IOException e) {
      closeQuietly(held);
      err.println("dlock: cannot run '" + command.get(0) + "': " + e.getMessage());
      return ExitCodes.CANNOT_RUN;
    }
    AtomicReference<LeaseLostException> lost = new AtomicReference<>();
    held.onLost(e -> {
      lost.set(e);
      process.destroy();
    });
    int status = waitFor(process);
    LeaseLostException loss = lost.get();
    closeQuietly(held);
    if (loss != null) {
      err.println("dlock: the lease on '" + name + "' was lost, so the command was stopped: " + loss.getMessage());
      return ExitCodes.LOST;
    }
    return status;
  }

  /** Waits for the child; if dlock itself is interrupted, the child is stopped rather than orphaned. */
  private static int waitFor(Process process) throws InterruptedException {
    try {
      return process.waitFor();
    } catch (InterruptedException e) {
      process.destroy();
      throw e;
    }
  }

  private static void closeQuietly(Lease held) {
    try {
      held.close();
    } catch (LeaseLostException alreadyReported) {
      // The loss was reported when it happened; closing only cleans up.
    }
  }
}

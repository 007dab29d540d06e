package dev.dlock.cli;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.LockTimeoutException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code dlock run}: holds a lock while a command runs. The command inherits stdin, stdout and
 * stderr, runs in a process group of its own ({@link ProcessGroup}), and its exit status becomes
 * dlock's. The lease is renewed while the command runs; if it is lost anyway, the command is
 * stopped, because it is no longer protected.
 *
 * <p>dlock must never exit while its command, or anything the command started, still runs: the lock
 * would be free while the work it protects goes on. So SIGTERM, SIGINT and SIGHUP are taken from
 * the JVM ({@link Signals}) and forwarded to the command's group; dlock then waits for the group,
 * releases the lock and exits with the command's status. A signal that comes before the command
 * has started stops the wait for the lock instead (the main thread is interrupted) and dlock exits
 * 128+N without starting it. One monitor decides between the two, so a signal is never lost
 * between acquiring and starting.
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Run COMMAND while holding the lock NAME.", "",
        "COMMAND runs in a process group of its own. SIGTERM, SIGINT and SIGHUP sent to dlock are"
            + " forwarded to that whole group; dlock waits for it, releases the lock and exits with"
            + " COMMAND's status. If the lease is lost while COMMAND runs, the group gets SIGTERM."
            + " Either way, whatever of the group is left after --kill-after gets SIGKILL."},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
        "(status):COMMAND's own exit status; 128+N if signal N ended it",
        "64:bad arguments (nothing was connected)",
        "69:the lock server could not be reached",
        "70:the lease was lost while COMMAND ran; COMMAND was stopped",
        "75:the lock was busy and --wait ran out",
        "127:COMMAND could not be run",
        "128+N:dlock got signal N before COMMAND started"})
final class RunCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--url", description = "Lock backend URL (default: embedded H2 in ~/.dlock).")
  String url;

  @Option(names = "--name", required = true, converter = Converters.Name.class, description = "The lock name.")
  String name;

  @Option(names = "--wait", converter = Converters.Wait.class,
      description = "How long to wait for a busy lock, e.g. 0s, 500ms, 2m (default: as long as it takes).")
  Duration wait;

  @Option(names = "--lease", converter = Converters.Lease.class,
      description = "The lease, renewed every third of it while the command runs (default: 30s).")
  Duration lease;

  @Option(names = "--kill-after", converter = Converters.Time.class, defaultValue = "10s",
      description = "After a lost lease or a forwarded signal, how long the command has to end before"
          + " its group gets SIGKILL (default: ${DEFAULT-VALUE}).")
  Duration killAfter;

  @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "The command and its arguments, after --.")
  List<String> command;

  /** Guards the hand-over from "waiting for the lock" to "command started". */
  private final Object starting = new Object();
  private Thread main;
  private Supervisor supervisor;
  private Signals.Received early;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    if (ProcessGroup.executable(command.get(0)).isEmpty()) {
      err.println("dlock: cannot run '" + command.get(0) + "': no such executable file");
      return ExitCodes.CANNOT_RUN;
    }
    main = Thread.currentThread();
    Signals.take(this::signalled);
    try {
      return lockAndRun(err);
    } catch (InterruptedException | RuntimeException e) {
      Signals.Received signal = earlySignal();
      if (signal == null) {
        throw e;
      }
      return ExitCodes.signalled(signal.number());
    }
  }

  private int lockAndRun(PrintWriter err) throws InterruptedException, IOException {
    try (LockClient client = Connection.open(url, lease)) {
      DistributedLock lock = client.lock(name);
      Lease held;
      try {
        held = wait == null ? lock.acquire() : lock.acquire(wait);
      } catch (LockTimeoutException busy) {
        err.println("dlock: lock '" + name + "' is busy: " + busy.getMessage());
        return ExitCodes.BUSY;
      }
      try {
        return runHolding(held, err);
      } finally {
        closeQuietly(held);
      }
    }
  }

  private int runHolding(Lease held, PrintWriter err) throws InterruptedException, IOException {
    Supervisor running;
    synchronized (starting) {
      if (early != null) {
        Thread.interrupted(); // the interrupt was for the wait, which is over; the release must not see it
        return ExitCodes.signalled(early.number());
      }
      try {
        supervisor = new Supervisor(ProcessGroup.start(command), killAfter);
      } catch (IOException e) {
        err.println("dlock: cannot run '" + command.get(0) + "': " + e.getMessage());
        return ExitCodes.CANNOT_RUN;
      }
      running = supervisor;
    }
    AtomicReference<LeaseLostException> lost = new AtomicReference<>();
    held.lost().thenAcceptAsync(e -> {
      lost.set(e);
      stop(running, "TERM", err);
    });
    int status = running.await();
    LeaseLostException loss = lost.get();
    Optional<String> killed = running.killNote();
    if (loss != null) {
      err.println("dlock: the lease on '" + name + "' was lost, so the command was stopped"
          + killed.map(note -> " (" + note + ")").orElse("") + ": " + loss.getMessage());
      return ExitCodes.LOST;
    }
    killed.ifPresent(note -> err.println("dlock: '" + command.get(0) + "' was told to stop, and " + note));
    return status;
  }

  /** A forwarded signal: stops the command if it runs, else ends the wait for the lock. */
  private void signalled(Signals.Received signal) {
    Supervisor running;
    synchronized (starting) {
      running = supervisor;
      if (running == null) {
        if (early == null) {
          early = signal;
          main.interrupt();
        }
        return;
      }
    }
    stop(running, signal.name(), spec.commandLine().getErr());
  }

  private Signals.Received earlySignal() {
    synchronized (starting) {
      return supervisor == null ? early : null;
    }
  }

  /** Runs on a signal or loss thread, where an exception would go unseen: it is printed instead. */
  private static void stop(Supervisor running, String signal, PrintWriter err) {
    try {
      running.stop(signal);
    } catch (UncheckedIOException e) {
      err.println("dlock: " + e.getMessage() + ": " + e.getCause());
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

package dev.dlock.cli;

import dev.dlock.BackendUnavailableException;
import dev.dlock.LockException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code dlock} command. Failures print one line naming what failed, never a stack trace:
 * users read it in a terminal or a cron mail. A bad argument gets that line and a pointer to
 * --help rather than the whole usage text, which would bury the line.
 */
@Command(name = "dlock", mixinStandardHelpOptions = true, version = "dlock 0.1.0",
    description = "Distributed locks from the command line.",
    subcommands = {RunCommand.class, StatusCommand.class, DemoCommand.class, LabCommand.class})
public final class Main {

  private Main() {}

  /** Runs the command line and exits with its status. */
  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns its exit status, for tests and embedding. */
  public static int run(String... args) {
    CommandLine cli = new CommandLine(new Main());
    cli.setExecutionExceptionHandler((e, commandLine, parsed) -> {
      commandLine.getErr().println("dlock: " + oneLine(e));
      if (e instanceof BackendUnavailableException) {
        return ExitCodes.UNAVAILABLE;
      }
      if (e instanceof IllegalArgumentException) {
        return ExitCodes.USAGE;
      }
      return e instanceof LockException ? ExitCodes.UNAVAILABLE : 1;
    });
    cli.setParameterExceptionHandler((e, given) -> {
      CommandLine failed = e.getCommandLine();
      failed.getErr().println("dlock: " + oneLine(e));
      failed.getErr().println("Try '" + failed.getCommandSpec().qualifiedName() + " --help' for more.");
      return ExitCodes.USAGE;
    });
    return cli.execute(args);
  }

  private static String oneLine(Exception e) {
    String message = e.getMessage() != null ? e.getMessage() : e.toString();
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}

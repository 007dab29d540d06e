package dev.dlock.cli;

/** Exit statuses, from sysexits.h where one fits, so scripts can tell failures apart. */
final class ExitCodes {
  /** Bad arguments. */
  static final int USAGE = 64;
  /** The lock server could not be reached. */
  static final int UNAVAILABLE = 69;
  /** The lease was lost while the command ran; the command was stopped. */
  static final int LOST = 70;
  /** The lock was busy and the wait ran out: try again later. */
  static final int BUSY = 75;
  /** The command could not be started. */
  static final int CANNOT_RUN = 127;

  private static final int SIGNALLED = 128;

  /** What a shell reports for a process that signal {@code number} ended. */
  static int signalled(int number) {
    return SIGNALLED + number;
  }

  private ExitCodes() {}
}

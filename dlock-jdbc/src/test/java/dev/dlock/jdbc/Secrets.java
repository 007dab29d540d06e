package dev.dlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Checks that a secret shows nowhere: not in an exception (message, toString and stack trace of
 * the whole cause chain, suppressed ones included) and not in the log, which slf4j-simple writes
 * to whatever System.err is at the time of each line.
 */
final class Secrets {
  /** Work that may throw anything. */
  interface Body {
    void run() throws Exception;
  }

  private Secrets() {}

  /** Asserts that {@code secret} appears nowhere in {@code t} or what it carries. */
  static void assertHidden(Throwable t, String secret) {
    StringWriter printed = new StringWriter();
    t.printStackTrace(new PrintWriter(printed));
    assertThat(printed.toString()).as("the stack trace of %s", t.getClass().getName()).doesNotContain(secret);
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    walk(t, secret, seen);
    assertThat(seen).as("exceptions checked").isNotEmpty();
  }

  private static void walk(Throwable t, String secret, Map<Throwable, Boolean> seen) {
    if (t == null || seen.put(t, true) != null) {
      return;
    }
    assertThat(String.valueOf(t.getMessage())).as("the message of %s", t.getClass().getName())
        .doesNotContain(secret);
    assertThat(t.toString()).doesNotContain(secret);
    walk(t.getCause(), secret, seen);
    for (Throwable s : t.getSuppressed()) {
      walk(s, secret, seen);
    }
  }

  /**
   * Runs {@code body} with System.err captured (and still echoed), and returns what was written
   * to it, the log lines of every thread included.
   */
  static String capturingLog(Body body) throws Exception {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream tee = new PrintStream(new TeeStream(original, captured), true, StandardCharsets.UTF_8);
    System.setErr(tee);
    try {
      body.run();
    } finally {
      System.setErr(original);
      tee.flush();
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  /** Writes to both streams. */
  private static final class TeeStream extends java.io.OutputStream {
    private final PrintStream echo;
    private final ByteArrayOutputStream copy;

    TeeStream(PrintStream echo, ByteArrayOutputStream copy) {
      this.echo = echo;
      this.copy = copy;
    }

    @Override
    public synchronized void write(int b) {
      echo.write(b);
      copy.write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      echo.write(b, off, len);
      copy.write(b, off, len);
    }
  }
}

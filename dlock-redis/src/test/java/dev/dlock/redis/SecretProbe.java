package dev.dlock.redis;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;

/**
 * Runs, in a JVM of its own, what a user of each URL form would see, and prints all of it: the
 * whole text of every exception (causes and suppressed included, as printStackTrace gives it), and
 * each client's toString. Its log goes to stderr at debug level (the test that starts it sets
 * that). Arguments come in threes, label, scenario and URL; the URLs hold the secrets and are
 * never printed. Each scenario ends with a line {@code @@ label scenario outcome} for the test.
 */
public final class SecretProbe {
  private SecretProbe() {}

  public static void main(String[] args) {
    for (int i = 0; i + 2 < args.length; i += 3) {
      String label = args[i] + " " + args[i + 1];
      String outcome;
      try {
        outcome = switch (args[i + 1]) {
          case "working" -> working(args[i + 2]);
          case "failing" -> failing(args[i + 2]);
          default -> throw new IllegalArgumentException("no scenario " + args[i + 1]);
        };
      } catch (Throwable e) {
        outcome = "UNEXPECTED " + text(e);
      }
      System.out.println("@@ " + label + " " + outcome);
    }
    System.out.flush();
  }

  /** A holder and a client that times out waiting for it. */
  private static String working(String url) throws Exception {
    try (LockClient holder = LockClient.connect(url); LockClient other = LockClient.connect(url);
        Lease held = holder.lock("probe").acquire(Duration.ofSeconds(5))) {
      System.out.println("toString: " + holder + " | " + other);
      try {
        other.lock("probe").acquire(Duration.ofMillis(300));
        return "acquired-a-held-lock";
      } catch (Exception e) {
        System.out.println(text(e));
        return e.getClass().getSimpleName() + (held.isValid() ? "" : " lost");
      }
    }
  }

  /** A client that cannot be had: no server, a wrong password, or a URL refused as it is. */
  private static String failing(String url) {
    try (LockClient c = LockClient.connect(url)) {
      return "connected " + c;
    } catch (Exception e) {
      System.out.println(text(e));
      return e.getClass().getSimpleName();
    }
  }

  private static String text(Throwable e) {
    StringWriter w = new StringWriter();
    e.printStackTrace(new PrintWriter(w));
    return w.toString();
  }
}

package dev.dlock.lab;

/**
 * Runs a server of a lab child JVM until the lab closes that JVM's standard input. Why one place:
 * the standalone ZooKeeper main and the ensemble member's main differ only in the server they run;
 * both must exit when the lab's pipe closes, even after a {@code kill -9} of the lab, and exit at
 * once when the server cannot run rather than wait on stdin.
 */
final class StdinBound {
  private StdinBound() {}

  /** Starts {@code server} on a daemon thread named {@code name}; exits 0 when stdin closes, 2 if the server throws. */
  static void serve(String name, Runnable server) throws Exception {
    Thread thread = new Thread(server, name);
    thread.setDaemon(true);
    thread.setUncaughtExceptionHandler((t, e) -> {
      e.printStackTrace();
      System.exit(2);
    });
    thread.start();
    while (System.in.read() >= 0) {
      // until the lab closes the pipe, or dies
    }
    System.exit(0);
  }
}

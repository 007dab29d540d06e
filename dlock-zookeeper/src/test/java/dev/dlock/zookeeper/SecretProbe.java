package dev.dlock.zookeeper;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.apache.curator.test.TestingServer;

/**
 * The child JVM of {@link SecretsTest}: runs every URL form with a password against a server of
 * its own, failing and working, and prints, for each case, {@code CASE <name> -> <class>} and the
 * whole stack trace (causes and suppressed exceptions included), or the client's descriptions
 * when it works. Its log goes to stderr at TRACE level for the library, Curator and the ZooKeeper
 * client, so the test can search everything for the secret.
 */
public final class SecretProbe {
  /** Every fragment of every password below contains it, however a parser might split one. */
  static final String SECRET = "Zk-S3cret";

  private static final PrintStream out = System.out;

  private SecretProbe() {}

  public static void main(String[] args) throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    String nowhere = "127.0.0.1:" + closed;
    String bad = "zookeeper://alice:" + SECRET + "@";
    TestingServer server = ZkServers.server();
    String live = server.getConnectString();
    String alice = "zookeeper://alice:" + SECRET + "@" + live + "/secure";

    // Failing at parse, at connect, at use.
    run("bare-secret", () -> LockClient.builder().url("zookeeper://" + SECRET + "@" + live).build());
    run("bad-escape", () -> LockClient.builder().url(bad + "%zz" + SECRET + "@" + live).build());
    run("bad-parameter", () -> LockClient.builder().url(bad + live + "?sessionTimeout=abc").build());
    run("unknown-parameter", () -> LockClient.builder().url(bad + live + "?password=" + SECRET).build());
    run("bad-host", () -> LockClient.builder().url(bad + "no_such host:1").build());
    run("no-server", () -> LockClient.builder().url(bad + nowhere + "/c?connectTimeout=500ms").build());
    run("no-servers", () -> LockClient.builder()
        .url(bad + nowhere + "," + nowhere + "/c?connectTimeout=500ms").build());
    run("unescaped", () -> LockClient.builder()
        .url("zookeeper://alice:" + SECRET + "@" + SECRET + "/" + SECRET + "?" + SECRET + "@" + nowhere
            + "?connectTimeout=500ms").build());

    // Working, then refused by an ACL (wrong password), then timing out, then cut off.
    try (LockClient owner = LockClient.builder().url(alice).build()) {
      Lease held = owner.lock("vault").acquire(Duration.ofSeconds(10));
      out.println("CASE working -> " + owner + " / " + held + " / " + owner.inspect("vault"));
      try (LockClient wrong = LockClient.builder()
          .url("zookeeper://alice:" + SECRET + "-wrong@" + live + "/secure").build();
          LockClient same = LockClient.builder().url(alice).build()) {
        out.println("CASE wrong-password-client -> " + wrong);
        run("wrong-password", () -> wrong.lock("vault").tryAcquire());
        run("timeout", () -> same.lock("vault").acquire(Duration.ofMillis(300)));
      }
      server.stop();
      run("server-gone", () -> owner.lock("other").acquire(Duration.ofSeconds(1)));
      run("server-gone-release", () -> {
        held.close();
        return null;
      });
    }
    server.close();
    out.println("DONE");
    System.exit(0);
  }

  private static void run(String name, Callable<?> call) {
    try {
      Object result = call.call();
      out.println("CASE " + name + " -> no exception: " + result);
    } catch (Throwable e) {
      out.println("CASE " + name + " -> " + e.getClass().getName());
      e.printStackTrace(out);
    }
  }
}

package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * No URL form shows a password: not in any exception's text (causes and suppressed included), not
 * in a client's toString or a LockTimeoutException, not in the log at debug level. Every form runs
 * against real servers that require the password (a wrong password fails there) and against ports
 * with no server, in a JVM of its own ({@link SecretProbe}) whose output and log are searched for
 * the secrets. Each secret starts with a marker ({@code Sd3f}, {@code Al1ce}, {@code Wr0ng}) that
 * appears nowhere else.
 */
class RedisSecretsTest {
  private static final String DEFAULT_PW = "Sd3f-Pw9x";
  /** Alice's password holds a '+', written %2B in the URLs: neither spelling may show. */
  private static final String ALICE_PW = "Al1ce+Pw7q";
  private static final String ALICE = "alice:Al1ce%2BPw7q@";
  private static final String WRONG_PW = "Wr0ng-Pw5k";
  private static final List<String> MARKERS = List.of("Sd3f", "Al1ce", "Wr0ng");
  private static final String ACL = "on >" + ALICE_PW + " ~* &* +@all";

  @Test
  void noUrlFormShowsItsPasswordInAMessageAToStringOrTheLog() throws Exception {
    TlsFiles tls = TlsFiles.selfSigned();
    int tlsPort = RedisTestServer.freePort();
    List<String> settings = new ArrayList<>(List.of("requirepass " + DEFAULT_PW, "user alice " + ACL));
    settings.addAll(List.of(tls.serverSettings(tlsPort)));
    String free = "127.0.0.1:" + RedisTestServer.freePort();
    String frees = free + ",127.0.0.1:" + RedisTestServer.freePort() + ",127.0.0.1:" + RedisTestServer.freePort();
    try (RedisTestServer server = RedisTestServer.withPassword(DEFAULT_PW, settings.toArray(String[]::new));
        RedisTestServer b = RedisTestServer.withPassword(DEFAULT_PW, "requirepass " + DEFAULT_PW, "user alice " + ACL);
        RedisTestServer c = RedisTestServer.withPassword(DEFAULT_PW, "requirepass " + DEFAULT_PW, "user alice " + ACL);
        SentinelServers sentinel = SentinelServers.start(1);
        ClusterServers cluster = ClusterServers.start()) {
      aclUser(sentinel.masterPort());
      cluster.ports().forEach(RedisSecretsTest::aclUser);
      String one = "127.0.0.1:" + server.port();
      String three = one + ",127.0.0.1:" + b.port() + ",127.0.0.1:" + c.port();
      String sentinels = sentinel.url("").substring("redis-sentinel://".length());
      String nodes = cluster.url("").substring("redis-cluster://".length());
      Probe probe = new Probe()
          .form("lone", "redis://%s" + one, "redis://%s" + free, DEFAULT_PW + "@")
          .form("acl", "redis://%s" + one, "redis://%s" + free, ALICE)
          .form("colon", "redis://%s" + one, "redis://%s" + free, ":" + DEFAULT_PW + "@")
          .form("tls", "rediss://%s127.0.0.1:" + tlsPort + "?verifyPeer=NONE", "rediss://%s" + free, ALICE)
          .form("sentinel", "redis-sentinel://%s" + sentinels, "redis-sentinel://%s" + frees + "/dlock", ALICE)
          .form("cluster", "redis-cluster://%s" + nodes, "redis-cluster://%s" + free, ALICE)
          .form("redlock", "redlock://%s" + three, "redlock://%s" + frees, ALICE)
          .form("redlock-lone", "redlock://%s" + three, "redlock://%s" + frees, DEFAULT_PW + "@")
          .failing("parameter", "redis://" + one + "?password=" + DEFAULT_PW, "IllegalArgumentException")
          .failing("bad-port", "redis://alice:" + ALICE_PW.replace("+", "%2B") + "@127.0.0.1:x", "IllegalArgumentException")
          .failing("bad-redlock", "redlock://" + DEFAULT_PW + "@" + free, "IllegalArgumentException");
      probe.runAndCheck();
    }
  }

  /** Adds the user alice with her password on the redis-server on {@code port}. */
  private static void aclUser(int port) {
    RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
    try (StatefulRedisConnection<String, String> conn = client.connect()) {
      conn.sync().aclSetuser("alice", io.lettuce.core.AclSetuserArgs.Builder.on()
          .addPassword(ALICE_PW).keyPattern("*").channelPattern("*").allCommands());
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /** The scenarios of one probe JVM, and what each must end with. */
  private static final class Probe {
    private final List<String> args = new ArrayList<>();
    private final List<String> expected = new ArrayList<>();

    /**
     * A form, {@code %s} standing for its user info: working with {@code auth} (a timeout while
     * another client holds the lock), failing with a wrong password, and failing where no server
     * listens.
     */
    Probe form(String label, String working, String nowhere, String auth) {
      String wrong = auth.contains(":") ? auth.substring(0, auth.indexOf(':') + 1) + WRONG_PW + "@" : WRONG_PW + "@";
      add(label, "working", String.format(working, auth), "LockTimeoutException");
      add(label + "-wrong-password", "failing", String.format(working, wrong), "BackendUnavailableException");
      add(label + "-no-server", "failing", String.format(nowhere, auth), "BackendUnavailableException");
      return this;
    }

    Probe failing(String label, String url, String outcome) {
      add(label, "failing", url, outcome);
      return this;
    }

    private void add(String label, String scenario, String url, String outcome) {
      args.addAll(List.of(label, scenario, url));
      expected.add("@@ " + label + " " + scenario + " " + outcome);
    }

    void runAndCheck() throws IOException, InterruptedException {
      Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "secret-probe");
      Path out = dir.resolve("out.txt");
      Path log = dir.resolve("log.txt");
      List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Dorg.slf4j.simpleLogger.defaultLogLevel=debug", "-Djava.io.tmpdir=" + dir, "-cp",
          System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
          SecretProbe.class.getName()));
      cmd.addAll(args);
      Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(log.toFile()).start();
      assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("the probe ended").isTrue();
      String printed = Files.readString(out, StandardCharsets.UTF_8);
      String logged = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(printed.lines().filter(l -> l.startsWith("@@ ")).toList()).as("the probe's outcomes")
          .containsExactlyElementsOf(expected);
      assertThat(printed).as("toString of working clients").contains("redis://***@127.0.0.1:")
          .contains("redis://alice:***@127.0.0.1:").contains("rediss://alice:***@127.0.0.1:")
          .contains("redis-sentinel://alice:***@").contains("redis-cluster://alice:***@")
          .contains("redlock://alice:***@").contains("redlock://***@");
      assertThat(logged.lines().count()).as("debug lines logged").isGreaterThan(100);
      assertThat(leaks(printed)).as("messages and toString showing a secret").isEmpty();
      assertThat(leaks(logged)).as("log lines showing a secret").isEmpty();
    }

    private static String leaks(String text) {
      StringJoiner found = new StringJoiner("\n");
      text.lines().filter(l -> MARKERS.stream().anyMatch(l::contains)).limit(20).forEach(found::add);
      return found.toString();
    }
  }
}

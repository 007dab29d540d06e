package dev.dlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.BackendUnavailableException;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.spi.LockInfo;
import dev.dlock.zookeeper.TestClients.Client;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The URL and what it sets up on a real server: parsing and its error messages, the chroot,
 * digest credentials and their ACLs, container parents that vanish when empty, inspection, and
 * bounded failures when no server answers.
 */
class UrlTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);
  // Empty containers are removed within 100 ms here, so the test can watch one go.
  @RegisterExtension
  static final ZkServer server = new ZkServer(Duration.ofMillis(100));
  private final TestClients clients = new TestClients();
  private ZooKeeper raw;

  @AfterEach
  void closeClients() throws Exception {
    clients.close();
    if (raw != null) {
      raw.close();
    }
  }

  private ZooKeeper raw() throws Exception {
    raw = server.rawClient();
    return raw;
  }

  @Test
  void parsesHostsCredentialsChrootAndTimeouts() {
    ZkUrl u = ZkUrl.parse("zookeeper://app:p%40ss:w@h1:2181,h2,10.0.0.3:2182/team/locks?sessionTimeout=4s&connectionTimeout=1500");
    assertThat(u.hosts()).isEqualTo("h1:2181,h2:2181,10.0.0.3:2182");
    assertThat(u.user()).isEqualTo("app");
    assertThat(u.password()).isEqualTo("p@ss:w");
    assertThat(u.chroot()).isEqualTo("/team/locks");
    assertThat(u.sessionTimeout()).isEqualTo(Duration.ofSeconds(4));
    assertThat(u.connectTimeout()).as("connectionTimeout, the alias of connectTimeout").isEqualTo(Duration.ofMillis(1500));
    assertThat(ZkUrl.parse("zookeeper://h1?connectTimeout=700ms").connectTimeout()).isEqualTo(Duration.ofMillis(700));
    assertThat(u.toString()).doesNotContain("p%40ss").contains("app:***@");

    ZkUrl plain = ZkUrl.parse("ZooKeeper://localhost");
    assertThat(plain.hosts()).isEqualTo("localhost:2181");
    assertThat(plain.chroot()).isEmpty();
    assertThat(plain.hasCredentials()).isFalse();
    assertThat(plain.sessionTimeout()).isEqualTo(ZkUrl.DEFAULT_SESSION_TIMEOUT);
    assertThat(plain.connectTimeout()).isEqualTo(ZkUrl.DEFAULT_CONNECT_TIMEOUT).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void badUrlsAreRejectedNamingTheValueWithoutThePassword() {
    assertBad("zookeeper://", "'' is not a host");
    assertBad("zookeeper://h1:99999", "port 99999");
    assertBad("zookeeper://h1,,h2", "'' is not a host");
    assertBad("zookeeper://h1/a//b", "chroot '/a//b'");
    assertBad("zookeeper://h1/a/", "chroot '/a/'");
    assertBad("zookeeper://h1?sessionTimeout=soon", "sessionTimeout must be a duration such as 50ms or 2s: soon");
    assertBad("zookeeper://h1?sessionTimeout=5", "sessionTimeout '5'");
    assertBad("zookeeper://h1?retries=3", "unknown parameter 'retries'");
    assertThatThrownBy(() -> ZkUrl.parse("zookeeper://s3cret@h1")).as("a bare user info may be a secret")
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'zookeeper://***@h1'")
        .hasMessageContaining("credentials must be 'user:password@'").hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> LockClient.builder().url("zookeeper://u:secret@h1:x").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("zookeeper://u:***@h1:x").hasMessageNotContaining("secret");
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      sessionTimeout    | abc             | sessionTimeout must be a duration such as 50ms or 2s: abc
      sessionTimeout    | -1              | sessionTimeout must be a duration such as 50ms or 2s: -1
      sessionTimeout    | ""              | sessionTimeout must be a duration such as 50ms or 2s: ;
      sessionTimeout    | 0               | sessionTimeout '0' must be between 100ms and 1 hour
      sessionTimeout    | 2h              | sessionTimeout '2h' must be between 100ms and 1 hour
      sessionTimeout    | 1.5s            | sessionTimeout must be a duration such as 50ms or 2s: 1.5s
      connectTimeout    | abc             | connectTimeout must be a duration such as 50ms or 2s: abc
      connectTimeout    | -1              | connectTimeout must be a duration such as 50ms or 2s: -1
      connectTimeout    | 50ms            | connectTimeout '50ms' must be between 100ms and 1 hour
      connectTimeout    | 999999999999s   | connectTimeout '999999999999s' must be between 100ms and 1 hour
      connectionTimeout | abc             | connectionTimeout must be a duration such as 50ms or 2s: abc
      connectionTimeout | -1              | connectionTimeout must be a duration such as 50ms or 2s: -1
      connectionTimeout | 0s              | connectionTimeout '0s' must be between 100ms and 1 hour
      """)
  void malformedParameterValuesAreRejectedAtOnceNamingParameterAndValue(String key, String value, String part) {
    String url = "zookeeper://app:pw-Secret9@127.0.0.1:1/c?" + key + "=" + value;
    long start = System.nanoTime();
    assertThatThrownBy(() -> LockClient.builder().url(url).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(part)
        .hasMessageContaining("zookeeper://app:***@127.0.0.1:1/c?" + key + "=" + value)
        .hasMessageNotContaining("pw-Secret9");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("rejected before any connection attempt")
        .isLessThan(Duration.ofMillis(500));
  }

  @Test
  void aParameterGivenTwiceOrUnderBothItsNamesIsRejected() {
    assertBad("zookeeper://h1?sessionTimeout=1s&sessionTimeout=2s", "parameter 'sessionTimeout' is given twice");
    assertBad("zookeeper://h1?connectTimeout=1s&connectionTimeout=2s",
        "parameter 'connectionTimeout' is given twice (connectionTimeout is an alias of connectTimeout)");
  }

  private static void assertBad(String url, String part) {
    assertThatThrownBy(() -> ZkUrl.parse(url)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + url + "'").hasMessageContaining(part);
  }

  @Test
  void chrootHoldsEveryNodeAndTheDirectoriesAreContainersThatVanishWhenEmpty() throws Exception {
    Client c = clients.open(ZkServers.url(server.connectString() + "/team/a", ""));
    ZooKeeper zk = raw();
    String dir = "/team/a/dlock/locks/orders%2E42";
    try (Lease held = c.client().lock("orders.42").acquire(PATIENCE)) {
      List<String> children = zk.getChildren(dir, false);
      assertThat(children).hasSize(1);
      Stat stat = new Stat();
      byte[] data = zk.getData(dir + "/" + children.get(0), false, stat);
      String owner = new String(data, StandardCharsets.UTF_8);
      assertThat(Nodes.ownerOf(children.get(0))).isEqualTo(owner).startsWith(c.client().id() + ":");
      assertThat(stat.getCzxid() << 4).as("the token: the node's czxid, shifted to leave room for hand-offs")
          .isEqualTo(held.token());
      assertThat(stat.getEphemeralOwner()).isEqualTo(c.backend().session().sessionId());
      assertThat(zk.exists("/dlock", false)).as("nothing outside the chroot").isNull();
      assertThat(c.client().inspect("orders.42")).contains(new LockInfo("orders.42", owner, held.token(),
          c.backend().session().sessionTimeout()));
      assertThat(c.client().inspectAll()).extracting(LockInfo::name).containsExactly("orders.42");
    }
    assertThat(c.client().inspect("orders.42")).isEmpty();
    // Every parent is a container: once empty, the server removes them all, up to the chroot.
    CountDownLatch gone = new CountDownLatch(1);
    if (zk.exists("/team", e -> gone.countDown()) != null) {
      assertThat(gone.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the empty containers were removed").isTrue();
    }
    assertThat(zk.exists("/team", false)).isNull();
  }

  @Test
  void credentialsMakeNodesCreatorOnly() throws Exception {
    String url = ZkServers.url("alice:s3cret@" + server.connectString() + "/secure", "");
    Client alice = clients.open(url);
    assertThat(alice.backend().describe()).contains("alice:***@").doesNotContain("s3cret");
    ZooKeeper anonymous = raw();
    try (Lease held = alice.client().lock("vault").acquire(PATIENCE)) {
      String dir = "/secure/dlock/locks/vault";
      List<ACL> acl = alice.backend().session().zk().getACL(dir, new Stat());
      assertThat(acl).hasSize(1);
      assertThat(acl.get(0).getId().getScheme()).isEqualTo("digest");
      assertThat(acl.get(0).getId().getId()).startsWith("alice:");
      assertThat(acl.get(0).getPerms()).isEqualTo(ZooDefs.Perms.ALL);
      String node = dir + "/" + alice.backend().session().zk().getChildren(dir, false).get(0);
      assertThatThrownBy(() -> anonymous.getChildren(dir, false)).isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> anonymous.getData(node, false, null)).isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> anonymous.getACL(node, new Stat())).isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> anonymous.delete(node, -1)).as("deleting the holder's node without credentials")
          .isInstanceOf(KeeperException.NoAuthException.class);

      // A client without credentials can neither take the lock nor be told it is free.
      Client stranger = clients.open(ZkServers.url(server.connectString() + "/secure", ""));
      assertThatThrownBy(() -> stranger.client().lock("vault").tryAcquire())
          .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("NoAuth")
          .hasMessageContaining(server.connectString());
      // The same credentials in another client contend normally.
      Client alice2 = clients.open(url);
      assertThat(alice2.client().lock("vault").tryAcquire()).isEmpty();
      assertThat(held.isValid()).isTrue();
    }
  }

  @Test
  void unreachableServersFailPromptlyWithBackendUnavailable() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String url = "zookeeper://u:pw@127.0.0.1:" + port + "?connectionTimeout=1s";
    long start = System.nanoTime();
    assertThatThrownBy(() -> LockClient.builder().url(url).build())
        .isInstanceOf(BackendUnavailableException.class)
        .hasMessageContaining("zookeeper://u:***@127.0.0.1:" + port).hasMessageNotContaining("pw@");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(6));
  }

  @Test
  void aServerThatGoesAwayGivesBackendUnavailableNeverNotAcquired() throws Exception {
    TestingServer lonely = ZkServers.server();
    try {
      Client c = clients.open(ZkServers.url(lonely.getConnectString(), "connectionTimeout=1s&sessionTimeout=5s"));
      try (Lease first = c.client().lock("x").acquire(PATIENCE)) {
        assertThat(first.isValid()).isTrue();
      }
      lonely.stop();
      long start = System.nanoTime();
      assertThatThrownBy(() -> c.client().lock("y").tryAcquire())
          .isInstanceOf(BackendUnavailableException.class).hasMessageContaining(lonely.getConnectString());
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(6));
    } finally {
      lonely.close();
    }
  }
}

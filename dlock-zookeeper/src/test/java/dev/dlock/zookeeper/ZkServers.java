package dev.dlock.zookeeper;

import dev.dlock.testkit.FreePorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * Real ZooKeeper servers for tests (curator-test, in this JVM). A short tick lets tests ask for
 * session timeouts down to 200 ms, so expiry tests stay quick; the maximum stays at 30 s, and the
 * connection limit per address is lifted for the 50-client tests. A server that cannot start
 * fails the test.
 */
final class ZkServers {
  static final int TICK_MS = 100;
  private static final String CONTAINER_CHECK = "znode.container.checkIntervalMs";

  private ZkServers() {}

  static InstanceSpec spec() {
    return new InstanceSpec(null, FreePorts.next(), -1, -1, true, -1, TICK_MS, 0,
        Map.of("minSessionTimeout", "200", "maxSessionTimeout", "30000"));
  }

  static TestingServer server() throws Exception {
    return server(null);
  }

  /**
   * A server that looks for empty containers to remove every {@code containerCheck} (null: once a
   * minute, ZooKeeper's default). ZooKeeper reads that only from a system property as it starts,
   * so starts take turns: another server started meanwhile would read it too.
   */
  static synchronized TestingServer server(Duration containerCheck) throws Exception {
    if (containerCheck == null) {
      return new TestingServer(spec(), true);
    }
    System.setProperty(CONTAINER_CHECK, Long.toString(containerCheck.toMillis()));
    try {
      return new TestingServer(spec(), true);
    } finally {
      System.clearProperty(CONTAINER_CHECK);
    }
  }

  static TestingCluster cluster(int n) throws Exception {
    List<InstanceSpec> specs = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      specs.add(new InstanceSpec(null, FreePorts.next(), FreePorts.next(), FreePorts.next(), true, i, TICK_MS, 0,
          Map.of("minSessionTimeout", "200", "maxSessionTimeout", "30000")));
    }
    TestingCluster cluster = new TestingCluster(specs);
    cluster.start();
    return cluster;
  }

  /** A plain ZooKeeper client without credentials, to look at or change nodes from outside dlock. */
  static ZooKeeper rawClient(String connectString) throws IOException, InterruptedException {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper raw = new ZooKeeper(connectString, 5000, e -> {
      if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    if (!connected.await(20, TimeUnit.SECONDS)) {
      raw.close();
      throw new AssertionError("a plain ZooKeeper client did not connect to " + connectString + " in 20 s");
    }
    return raw;
  }

  /** Makes a ZooKeeper handle: a test's subclass of it, to count or hold back the requests a backend sends. */
  @FunctionalInterface
  interface HandleMaker {
    ZooKeeper make(String connect, int timeout, Watcher watcher, boolean readOnly, ZKClientConfig config)
        throws IOException;
  }

  /** A Curator factory whose every handle comes from {@code maker}, for {@link ZooKeeperBackendProvider#open}. */
  static ZookeeperFactory factory(HandleMaker maker) {
    return new ZookeeperFactory() {
      @Override
      public ZooKeeper newZooKeeper(String connect, int timeout, Watcher watcher, boolean readOnly)
          throws IOException {
        return maker.make(connect, timeout, watcher, readOnly, new ZKClientConfig());
      }

      @Override
      public ZooKeeper newZooKeeper(String connect, int timeout, Watcher watcher, boolean readOnly,
          ZKClientConfig config) throws IOException {
        return maker.make(connect, timeout, watcher, readOnly, config);
      }
    };
  }

  static String url(String connectString, String params) {
    return "zookeeper://" + connectString + (params.isEmpty() ? "" : "?" + params);
  }

  /** The answer of a four-letter command, such as {@code srvr}. */
  static String fourLetters(InstanceSpec spec, String command) throws Exception {
    return fourLetters(spec.getPort(), command);
  }

  /** The answer of a four-letter command; an IOException if none comes within 2 s (a server still starting may accept and say nothing). */
  static String fourLetters(int port, String command) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
      s.setSoTimeout(2000);
      OutputStream out = s.getOutputStream();
      out.write(command.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      StringBuilder b = new StringBuilder();
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
      for (String line; (line = in.readLine()) != null; ) {
        b.append(line).append('\n');
      }
      return b.toString();
    }
  }

  /**
   * Ends a backend's session at the server, as an expiry does: a second connection joins the
   * session with its id and password and closes it, so the server deletes its ephemeral nodes now.
   */
  static void killSession(String connectString, ZooKeeperBackend backend) throws Exception {
    ZooKeeper victim = backend.session().zk();
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper killer = new ZooKeeper(connectString, 5000, e -> {
      if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    }, victim.getSessionId(), victim.getSessionPasswd());
    try {
      if (!connected.await(20, TimeUnit.SECONDS)) {
        throw new AssertionError("could not join session " + victim.getSessionId() + " on " + connectString);
      }
    } finally {
      killer.close();
    }
  }
}

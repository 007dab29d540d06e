package dev.dlock.lab;

import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;

/**
 * A plain Curator connection for the lab's ZooKeeper schemes (S11, S13-naive), from the same
 * {@code zookeeper://host:port[,host:port][/chroot][?sessionTimeout=..]} URL dlock takes. Why:
 * the naive schemes must run on the very server and session timeout the library scheme runs on,
 * but use no recipe: only create, delete, getData and watches.
 */
final class Zk {
  static final int DEFAULT_SESSION_MS = 10_000;

  private Zk() {}

  /** Connects and waits up to 5 s for the session. */
  static CuratorFramework connect(String url) throws InterruptedException {
    if (!url.startsWith("zookeeper://")) {
      throw new IllegalArgumentException("a lab ZooKeeper scheme needs a zookeeper:// URL, not " + url);
    }
    String rest = url.substring("zookeeper://".length());
    int session = DEFAULT_SESSION_MS;
    int query = rest.indexOf('?');
    if (query >= 0) {
      for (String param : rest.substring(query + 1).split("&")) {
        if (param.startsWith("sessionTimeout=")) {
          session = millis(param.substring("sessionTimeout=".length()));
        }
      }
      rest = rest.substring(0, query);
    }
    rest = rest.substring(rest.lastIndexOf('@') + 1);
    CuratorFramework zk = CuratorFrameworkFactory.builder().connectString(rest)
        .sessionTimeoutMs(session).connectionTimeoutMs(2_000)
        .retryPolicy(new RetryNTimes(5, 200)).build();
    zk.start();
    if (!zk.blockUntilConnected(5, TimeUnit.SECONDS)) {
      zk.close();
      throw new IllegalStateException("no ZooKeeper session within 5 s at " + rest);
    }
    return zk;
  }

  /** {@code 500ms}, {@code 4s} or a bare number of milliseconds. */
  static int millis(String value) {
    try {
      if (value.endsWith("ms")) {
        return Integer.parseInt(value.substring(0, value.length() - 2));
      }
      if (value.endsWith("s")) {
        return Integer.parseInt(value.substring(0, value.length() - 1)) * 1000;
      }
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("sessionTimeout must be like 500ms, 4s or 4000, was '" + value + "'", e);
    }
  }
}

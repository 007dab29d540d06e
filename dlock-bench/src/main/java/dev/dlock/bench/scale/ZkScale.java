package dev.dlock.bench.scale;

import dev.dlock.bench.targets.ZkServer;
import dev.dlock.spi.LockBackend;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;

/**
 * The bench's ZooKeeper, in a JVM of its own ({@link ZkChild}) so that its data tree is not counted
 * in the client's heap, under the chroot {@value #CHROOT}. Requests are the packets the server
 * received (its {@code mntr} command), session pings included; stored: the nodes under the chroot.
 */
final class ZkScale implements ScaleBackend {
  static final String CHROOT = "/dlock-scale";
  private final String connect = ZkChild.connectString();
  private final CuratorFramework admin;

  ZkScale() {
    admin = CuratorFrameworkFactory.newClient(connect, new ExponentialBackoffRetry(100, 3));
    admin.start();
  }

  @Override
  public String name() {
    return "zookeeper";
  }

  @Override
  public LockBackend open() {
    return ScaleBackend.openUrl("zookeeper://" + connect + CHROOT + "?sessionTimeout=" + ZkChild.SESSION_TIMEOUT_MS);
  }

  @Override
  public long requests() {
    String first = connect.split(",")[0];
    int colon = first.lastIndexOf(':');
    try (Socket s = new Socket(first.substring(0, colon), Integer.parseInt(first.substring(colon + 1)))) {
      s.getOutputStream().write("mntr".getBytes(StandardCharsets.US_ASCII));
      s.shutdownOutput();
      InputStream in = s.getInputStream();
      for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
        if (line.startsWith("zk_packets_received")) {
          return Long.parseLong(line.substring(line.indexOf('\t') + 1).trim());
        }
      }
      return -1; // mntr is not on the server's 4lw whitelist
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read mntr from ZooKeeper at " + first, e);
    }
  }

  @Override
  public long stored() {
    try {
      admin.blockUntilConnected();
      return admin.getZookeeperClient().getZooKeeper().getAllChildrenNumber(CHROOT);
    } catch (KeeperException.NoNodeException e) {
      return 0;
    } catch (Exception e) {
      throw new IllegalStateException("cannot count the nodes under " + CHROOT + ": " + e, e);
    }
  }

  @Override
  public String storedUnit() {
    return "nodes";
  }

  @Override
  public String legend() {
    return "zookeeper: the bench's standalone ZooKeeper 3.9 (" + ZkServer.class.getSimpleName()
        + " settings) in a JVM of its own, chroot " + CHROOT + ", session timeout "
        + ZkChild.SESSION_TIMEOUT_MS / 1000 + " s; requests = packets the server received (mntr"
        + " zk_packets_received, session pings included); stored = nodes under the chroot, where each"
        + " name's directory is a container node that the server deletes once empty, on its own schedule"
        + " (ZooKeeper's defaults: a check every 60 s, at most 10,000 containers a minute).";
  }

  @Override
  public void close() {
    admin.close();
  }
}

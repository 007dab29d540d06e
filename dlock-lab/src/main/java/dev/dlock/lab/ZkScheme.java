package dev.dlock.lab;

import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;

/**
 * What the lab's naive ZooKeeper schemes (S11, S13-naive) share: one Curator connection, owner
 * values {@code <process>:<counter>}, the {@code onWake} hook that counts the herd, and no fencing.
 *
 * <p>Why a base class: the schemes differ only in the nodes they create and watch, and the rest
 * must be the same for the two herds to compare.
 */
abstract class ZkScheme implements Scheme {
  final CuratorFramework zk;
  final String process;
  private final Runnable onWake;
  private long counter;

  ZkScheme(String url, String process, Runnable onWake) throws InterruptedException {
    this.zk = Zk.connect(url);
    this.process = process;
    this.onWake = onWake;
  }

  /** The next owner value of this client, {@code <process>:<counter>}. */
  byte[] nextValue() {
    return (process + ":" + (++counter)).getBytes(StandardCharsets.UTF_8);
  }

  /** A watch for one wait, whose wake-up calls {@code onWake}. */
  ChangeWatch watch() {
    return new ChangeWatch(onWake);
  }

  @Override
  public boolean fenced() {
    return false;
  }

  @Override
  public void close() {
    zk.close();
  }
}

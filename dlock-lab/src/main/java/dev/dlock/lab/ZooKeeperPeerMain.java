package dev.dlock.lab;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;

/**
 * The main class of the JVM each {@link QuorumNode} starts: one member of a ZooKeeper ensemble,
 * run from a {@code zoo.cfg} the lab wrote (its peers, its ports, its {@code myid} beside the
 * data). Argument: {@code <zoo.cfg>}. Like {@link ZooKeeperMain}, it exits when its standard
 * input closes, so it never outlives the lab.
 *
 * <p>Why a main of its own: a member needs the quorum server and a config that names its peers;
 * the standalone main writes its own config and knows of no peers.
 */
public final class ZooKeeperPeerMain {
  private ZooKeeperPeerMain() {}

  /** Serves {@code args[0]} until stdin closes. */
  public static void main(String[] args) throws Exception {
    if (args.length != 1 || !Files.isRegularFile(Path.of(args[0]))) {
      throw new IllegalArgumentException("usage: ZooKeeperPeerMain <zoo.cfg>, was " + String.join(" ", args));
    }
    StdinBound.serve("zookeeper-peer", () -> QuorumPeerMain.main(args));
  }
}

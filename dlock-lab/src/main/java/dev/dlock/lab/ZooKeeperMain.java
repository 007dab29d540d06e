package dev.dlock.lab;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.zookeeper.server.ZooKeeperServerMain;

/**
 * The main class of the JVM {@link ZooKeeperProcess} starts: a standalone ZooKeeper server on
 * 127.0.0.1. Arguments: {@code <port> <dataDir>}. It exits when its standard input closes, so it
 * never outlives the lab, even a lab killed with {@code kill -9}.
 *
 * <p>Why a JVM of its own: a SIGSTOP must freeze the server and nothing else; ZooKeeper inside
 * the lab's JVM would freeze the lab with it.
 */
public final class ZooKeeperMain {
  /** The tick: session timeouts are multiples of it, and expiry is checked every tick. */
  static final int TICK_MS = 100;

  private ZooKeeperMain() {}

  /** Writes {@code zoo.cfg} into the data directory (kept across restarts) and serves it. */
  public static void main(String[] args) throws Exception {
    if (args.length != 2 || !args[0].matches("[0-9]{1,5}")) {
      throw new IllegalArgumentException("usage: ZooKeeperMain <port> <dataDir>, was " + String.join(" ", args));
    }
    Path dir = Path.of(args[1]);
    Path cfg = dir.resolve("zoo.cfg");
    Files.writeString(cfg, String.join("\n",
        "tickTime=" + TICK_MS,
        "minSessionTimeout=" + 2 * TICK_MS,
        "maxSessionTimeout=120000",
        "dataDir=" + dir.resolve("data").toAbsolutePath(),
        "clientPort=" + args[0],
        "clientPortAddress=127.0.0.1",
        "admin.enableServer=false",
        "4lw.commands.whitelist=srvr",
        ""));
    StdinBound.serve("zookeeper", () -> ZooKeeperServerMain.main(new String[] {cfg.toString()}));
  }
}

package dev.dlock.zookeeper;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.testkit.FairLockConformanceSuite;
import dev.dlock.testkit.ReadWriteLockConformanceSuite;
import dev.dlock.testkit.SemaphoreConformanceSuite;
import dev.dlock.testkit.SessionLockConformanceSuite;
import dev.dlock.testkit.StateLossCases;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every conformance suite on one real ZooKeeper server, each client opened by URL with its own
 * session: exclusive, fair, read-write and semaphore. Each kind has its own directory, so the
 * suites do not meet even where their lock names would.
 *
 * <p>Why {@link SessionLockConformanceSuite} and not the full suite: in ZooKeeper the session is
 * the lease. A grant is an ephemeral node that the server keeps exactly as long as its holder's
 * session lives, whatever lease time the client asked for, and drops the moment the session ends
 * or expires. ZooKeeper has no per-node expiry that could drop a grant because a client-chosen
 * lease ran out (TTL nodes are persistent, and dropping a live holder's node would break the queue),
 * so the four cases that need the server to drop a grant when its lease runs out do not apply: like
 * a PostgreSQL advisory lock, this is a lock bound to a session. The client still reports a fixed
 * lease lost at its deadline (covered by the suite), the engine then releases it (see
 * {@link FixedLeaseTest}), and a holder whose session expires is tested in {@link SessionTest}.
 * Releases are notified (the predecessor watch), so the wake-up cases run with polling turned off.
 *
 * <p>The only way a ZooKeeper server forgets a lock is that someone deletes its nodes: the exclusive
 * suite runs {@link StateLossCases} with that. The token cannot go back (it comes from the zxid,
 * which no delete resets), and the holder is told at once by the watch on its node.
 */
class ZooKeeperConformanceTest {
  @RegisterExtension
  static final ZkServer server = new ZkServer();
  private static ZooKeeper raw;

  @BeforeAll
  static void connect() throws Exception {
    raw = server.rawClient();
  }

  @AfterAll
  static void disconnect() throws Exception {
    raw.close();
  }

  private static LockClientBuilder builder() {
    return LockClient.builder().url(server.url("sessionTimeout=5s"));
  }

  @Nested
  class Exclusive extends SessionLockConformanceSuite implements StateLossCases {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder();
    }

    /** Deletes every node of the lock, its directory included, as an administrator might. */
    @Override
    public void forget(String name) throws Exception {
      String dir = new Nodes("").dir(name);
      try {
        for (String child : raw.getChildren(dir, false)) {
          raw.delete(dir + "/" + child, -1);
        }
        raw.delete(dir, -1);
      } catch (KeeperException.NoNodeException gone) {
        // the directory, empty, was removed already
      }
    }
  }

  @Nested
  class Fair extends FairLockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder();
    }
  }

  @Nested
  class ReadWrite extends ReadWriteLockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder();
    }
  }

  @Nested
  class Semaphore extends SemaphoreConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder();
    }
  }
}

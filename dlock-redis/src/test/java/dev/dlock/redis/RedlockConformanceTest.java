package dev.dlock.redis;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.testkit.LockConformanceSuite;
import dev.dlock.testkit.StateLossCases;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The exclusive-lock conformance suite on Redlock over five real redis-servers. Redlock grants
 * only exclusive locks; a release wakes the oldest waiter through the nodes, so the suite's
 * wake-up cases run with polling off. The node timeout is
 * generous for a loaded 2-core machine. The nodes forget a lock (for the state-loss cases) all
 * at once, as when every node restarts without persistence.
 */
class RedlockConformanceTest {
  @RegisterExtension
  static final RedisNodes nodes = RedisNodes.perClass(5);

  @Nested
  class Exclusive extends LockConformanceSuite implements StateLossCases {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return LockClient.builder().url(nodes.url("prefix=conformance:&nodeTimeout=200ms"));
    }

    @Override
    public void forget(String name) {
      nodes.forget("conformance:", name);
    }
  }
}

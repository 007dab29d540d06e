package dev.dlock.redis;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.testkit.FairLockConformanceSuite;
import dev.dlock.testkit.LockConformanceSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;

/**
 * The conformance suites through Sentinel: a master with one replica and three Sentinels, each
 * client opened by a {@code redis-sentinel://} URL; the exclusive suite also with the replica
 * policy on ({@code waitReplicas=1}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SentinelConformanceTest {
  private SentinelServers servers;

  @BeforeAll
  void start() {
    servers = SentinelServers.start(1);
  }

  @AfterAll
  void stop() {
    servers.close();
  }

  @Nested
  class Exclusive extends LockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return LockClient.builder().url(servers.url("prefix=sentinel:"));
    }
  }

  @Nested
  class ExclusiveWithReplicaAcknowledgement extends LockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return LockClient.builder().url(servers.url("prefix=sentinel-wait:&waitReplicas=1&waitTimeout=2s"));
    }
  }

  @Nested
  class Fair extends FairLockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return LockClient.builder().url(servers.url("prefix=sentinel-fair:"));
    }
  }
}

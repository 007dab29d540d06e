package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Parsing of the Sentinel and Cluster URLs and of the replica policy; no server needed. */
class RedisUrlTest {

  @Test
  void aSentinelUrlNamesItsSentinelsAndTheMasterAsThePath() {
    RedisUrl url = RedisUrl.parse("redis-sentinel://app:pw@s1:26379,s2:26380/orders?timeout=2s&prefix=x:");
    assertThat(url.mode()).isEqualTo(RedisUrl.Mode.SENTINEL);
    RedisURI uri = url.uri();
    assertThat(uri.getSentinelMasterId()).isEqualTo("orders");
    assertThat(uri.getSentinels()).extracting(RedisURI::getHost, RedisURI::getPort)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("s1", 26379), org.assertj.core.groups.Tuple.tuple("s2", 26380));
    assertThat(uri.getTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(url.prefix()).isEqualTo("x:");
    assertThat(url.description()).contains("app:***@").doesNotContain("pw");
    assertThat(url.replication().on()).isFalse();
  }

  @Test
  void aClusterUrlGivesEverySeedNodeTheSameCredentialsAndOptions() {
    RedisUrl url = RedisUrl.parse("redis-cluster://app:pw@n1:7000,n2:7001?timeout=3s&waitReplicas=1&waitTimeout=50ms");
    assertThat(url.mode()).isEqualTo(RedisUrl.Mode.CLUSTER);
    assertThat(url.uris()).extracting(RedisURI::getHost, RedisURI::getPort)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("n1", 7000), org.assertj.core.groups.Tuple.tuple("n2", 7001));
    assertThat(url.uris()).allSatisfy(u -> {
      assertThat(u.getUsername()).isEqualTo("app");
      assertThat(new String(u.getPassword())).isEqualTo("pw");
      assertThat(u.getTimeout()).isEqualTo(Duration.ofSeconds(3));
    });
    assertThat(url.replication()).isEqualTo(new RedisUrl.Replication(1, Duration.ofMillis(50)));
  }

  @Test
  void badTopologyUrlsAreRefusedNamingTheUrl() {
    assertThatThrownBy(() -> RedisUrl.parse("redis-sentinel://s1:26379,s2:26379"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must name its master as the path").hasMessageContaining("redis-sentinel://s1:26379,s2:26379");
    assertThatThrownBy(() -> RedisUrl.parse("redis-sentinel://s1:notaport/m"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("s1:notaport");
    assertThatThrownBy(() -> RedisUrl.parse("redis-cluster://n1:7000/2"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("takes no path");
    assertThatThrownBy(() -> RedisUrl.parse("redis-cluster://n1:7000,:x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redis-cluster://n1:7000,:x");
    assertThatThrownBy(() -> RedisUrl.parse("memcached://h:1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redis-sentinel://");
  }

  @Test
  void badReplicaPolicyValuesAreRefusedNamingThem() {
    assertThatThrownBy(() -> RedisUrl.parse("redis://h:1?waitReplicas=-1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitReplicas").hasMessageContaining("'-1'");
    assertThatThrownBy(() -> RedisUrl.parse("redis://h:1?waitReplicas=two"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'two'");
    assertThatThrownBy(() -> RedisUrl.parse("redis://h:1?waitReplicas=1&waitTimeout=soon"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitTimeout must be a duration such as 50ms or 2s: soon");
    assertThatThrownBy(() -> RedisUrl.parse("redis://h:1?waitReplicas=1&waitTimeout=0ms"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitTimeout must be positive");
  }
}

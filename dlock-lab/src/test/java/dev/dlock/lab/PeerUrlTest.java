package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PeerUrlTest {
  @Test
  void aRedisUrlGivesHostPortDatabaseAndCredentials() {
    PeerUrl.Redis plain = PeerUrl.redis("redis://127.0.0.1:6380/2");
    assertThat(plain).extracting(PeerUrl.Redis::host, PeerUrl.Redis::port, PeerUrl.Redis::database,
        PeerUrl.Redis::user, PeerUrl.Redis::password).containsExactly("127.0.0.1", 6380, 2, null, null);
    assertThat(plain.address()).isEqualTo("redis://127.0.0.1:6380");
    assertThat(PeerUrl.redis("redis://cache").port()).isEqualTo(6379);
    PeerUrl.Redis acl = PeerUrl.redis("redis://app:p%40ss@cache:1?timeout=2s");
    assertThat(acl.user()).isEqualTo("app");
    assertThat(acl.password()).isEqualTo("p@ss");
    assertThat(PeerUrl.redis("redis://:hunter2@cache").password()).isEqualTo("hunter2");
    assertThat(PeerUrl.redis("redis://hunter2@cache").password()).as("Lettuce's password-only form").isEqualTo("hunter2");
    assertThat(acl.toString()).doesNotContain("p@ss");
  }

  @Test
  void aZooKeeperUrlGivesTheConnectStringWithItsChroot() {
    assertThat(PeerUrl.zk("zookeeper://127.0.0.1:2181?sessionTimeout=1000ms").connect()).isEqualTo("127.0.0.1:2181");
    PeerUrl.Zk zk = PeerUrl.zk("zookeeper://app:hunter2@a:1,b:2/lab");
    assertThat(zk.connect()).isEqualTo("a:1,b:2/lab");
    assertThat(zk.user()).isEqualTo("app");
    assertThat(zk.password()).isEqualTo("hunter2");
    assertThat(zk.toString()).doesNotContain("hunter2");
  }

  @Test
  void badUrlsAreRefusedByTheirValueWithThePasswordHidden() {
    assertThatThrownBy(() -> PeerUrl.redis("redis://:hunter2@cache:99999"))
        .hasMessageContaining("99999").hasMessageContaining("redis://:***@cache:99999").hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> PeerUrl.redis("rediss://app:hunter2@cache"))
        .hasMessageContaining("rediss://app:***@cache").hasMessageContaining("'redis://'")
        .hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> PeerUrl.redis("redis://app:hunter2@cache/db0"))
        .hasMessageContaining("'db0'").hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> PeerUrl.zk("zookeeper://app:hunter2@a:b"))
        .hasMessageContaining("'a:b'").hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> PeerUrl.zk("zookeeper://hunter2@a:1"))
        .hasMessageContaining("user:password").hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> PeerUrl.jdbc("jdbc:mysql://db/app?user=app&password=hunter2"))
        .hasMessageContaining("jdbc:mysql://db/app?user=app&password=***").hasMessageContaining("'jdbc:postgresql:'")
        .hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> PeerUrl.redis(null)).hasMessageContaining("null");
  }
}

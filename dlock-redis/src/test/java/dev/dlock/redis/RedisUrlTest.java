package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SslVerifyMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Parsing of every URL form, its parameters and its mistakes; no server needed. */
@SuppressWarnings("deprecation") // reads back what dlock set through Lettuce's old accessors
class RedisUrlTest {
  private static final List<String> REDIS_FORMS = List.of("redis://h:1", "rediss://h:1",
      "redis-sentinel://s1:26379,s2:26380/m", "redis-cluster://n1:7000,n2:7001");

  /** A malformed value of each parameter, for every redis:// form: param, value as written, as named. */
  static Stream<Arguments> malformedRedisParameters() {
    List<String[]> bad = List.of(
        new String[] {"timeout", "abc", "abc"}, new String[] {"timeout", "-5ms", "-5ms"},
        new String[] {"timeout", "0", "0"}, new String[] {"timeout", "25h", "25h"},
        new String[] {"timeout", "", "timeout must be a duration"},
        new String[] {"connectTimeout", "abc", "abc"}, new String[] {"connectTimeout", "0ms", "0ms"},
        new String[] {"waitReplicas", "x", "'x'"}, new String[] {"waitReplicas", "-1", "'-1'"},
        new String[] {"waitReplicas", "99999999999", "'99999999999'"},
        new String[] {"waitTimeout", "-1s", "-1s"}, new String[] {"waitTimeout", "soon", "soon"},
        new String[] {"clientName", "a%20b", "'a b'"}, new String[] {"libraryName", "x%0Ay", "'x\ny'"},
        new String[] {"libraryVersion", "1%202", "'1 2'"}, new String[] {"verifyPeer", "maybe", "'maybe'"},
        new String[] {"prefix", "a%7Bb", "'a{b'"}, new String[] {"bogus", "1", "'bogus'"});
    List<Arguments> all = new ArrayList<>();
    for (String form : REDIS_FORMS) {
      for (String[] b : bad) {
        all.add(Arguments.of(form + "?" + b[0] + "=" + b[1], b[0], b[2]));
      }
      boolean cluster = form.startsWith("redis-cluster");
      for (String db : List.of("db", "database")) {
        all.add(Arguments.of(form + "?" + db + "=x", db, cluster ? "one database" : "'x'"));
        all.add(Arguments.of(form + "?" + db + "=-1", db, cluster ? "one database" : "'-1'"));
      }
      all.add(Arguments.of(form + "?timeout=1s&timeout=2s", "timeout", "twice"));
    }
    all.add(Arguments.of("redis://h:1/x", "database (the path)", "'x'"));
    all.add(Arguments.of("redis://h:1/2?db=3", "database", "twice"));
    return all.stream();
  }

  @ParameterizedTest
  @MethodSource("malformedRedisParameters")
  void aMalformedParameterValueIsRefusedNamingTheParameterAndTheValue(String url, String param, String value) {
    assertThatThrownBy(() -> RedisUrl.parse(url)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(param).hasMessageContaining(value);
    assertThatThrownBy(() -> new RedisBackendProvider().open(url)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(param).hasMessageContaining(value);
  }

  static Stream<Arguments> malformedRedlockParameters() {
    String nodes = "redlock://h:1,h:2,h:3?";
    return Stream.of(
        Arguments.of(nodes + "nodeTimeout=-5ms", "nodeTimeout", "-5ms"),
        Arguments.of(nodes + "nodeTimeout=abc", "nodeTimeout", "abc"),
        Arguments.of(nodes + "nodeTimeout=0", "nodeTimeout", "0"),
        Arguments.of(nodes + "timeout=abc", "timeout", "abc"),
        Arguments.of(nodes + "timeout=25h", "timeout", "25h"),
        Arguments.of(nodes + "connectTimeout=x", "connectTimeout", "x"),
        Arguments.of(nodes + "connectTimeout=-1s", "connectTimeout", "-1s"),
        Arguments.of(nodes + "restartDelay=x", "restartDelay", "x"),
        Arguments.of(nodes + "restartDelay=999999999999h", "restartDelay", "999999999999h"),
        Arguments.of(nodes + "drift=x", "drift", "x"),
        Arguments.of(nodes + "drift=-0.1", "drift", "-0.1"),
        Arguments.of(nodes + "drift=NaN", "drift", "NaN"),
        Arguments.of(nodes + "prefix=%7D", "prefix", "'}'"),
        Arguments.of(nodes + "db=1", "unknown redlock url parameter 'db'", "'db'"),
        Arguments.of(nodes + "drift=0.1&drift=0.2", "drift", "twice"));
  }

  @ParameterizedTest
  @MethodSource("malformedRedlockParameters")
  void aMalformedRedlockParameterIsRefusedNamingTheParameterAndTheValue(String url, String param, String value) {
    assertThatThrownBy(() -> new RedlockBackendProvider().open(url)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(param).hasMessageContaining(value);
  }

  @Test
  void lettucesParametersKeepTheirMeaning() {
    RedisUrl url = RedisUrl.parse("rediss://h:1/3?timeout=250&connectTimeout=500ms&clientName=app-1"
        + "&libraryName=lib&libraryVersion=9&verifyPeer=ca");
    RedisURI uri = url.uri();
    assertThat(uri.getTimeout()).isEqualTo(Duration.ofMillis(250)); // a bare number is milliseconds, as in Lettuce
    assertThat(url.connectTimeout()).isEqualTo(Duration.ofMillis(500));
    assertThat(uri.getDatabase()).isEqualTo(3);
    assertThat(uri.getClientName()).isEqualTo("app-1");
    assertThat(uri.getLibraryName()).isEqualTo("lib");
    assertThat(uri.getLibraryVersion()).isEqualTo("9");
    assertThat(uri.getVerifyMode()).isEqualTo(SslVerifyMode.CA);
    assertThat(uri.isSsl()).isTrue();
    RedisUrl plain = RedisUrl.parse("redis://[::1]?db=2");
    assertThat(plain.uri().getHost()).isEqualTo("::1");
    assertThat(plain.uri().getPort()).isEqualTo(6379);
    assertThat(plain.uri().getDatabase()).isEqualTo(2);
    assertThat(plain.uri().getTimeout()).isEqualTo(RedisUrl.DEFAULT_TIMEOUT);
    assertThat(plain.connectTimeout()).isEqualTo(RedisUrl.DEFAULT_CONNECT_TIMEOUT);
    assertThat(RedlockUrl.parse("redlock://h:1,h:2,h:3?connectTimeout=300ms").connectTimeout())
        .isEqualTo(Duration.ofMillis(300));
  }

  @Test
  void everyUserInfoFormAuthenticatesAsLettuceReadsIt() {
    RedisURI lone = RedisUrl.parse("redis://s3cret-Pw@h:1").uri();
    assertThat(lone.getUsername()).isNull();
    assertThat(new String(lone.getPassword())).isEqualTo("s3cret-Pw");
    RedisURI empty = RedisUrl.parse("redis://:pw%2B%40@h:1").uri();
    assertThat(empty.getUsername()).isNull();
    assertThat(new String(empty.getPassword())).isEqualTo("pw+@");
    RedisURI acl = RedisUrl.parse("redis://alice:p@ss@h:1").uri();
    assertThat(acl.getUsername()).isEqualTo("alice");
    assertThat(new String(acl.getPassword())).isEqualTo("p@ss");
    RedisURI none = RedisUrl.parse("redis://alice:@h:1").uri();
    assertThat(none.getPassword()).isNull();
    RedisURI node = RedlockUrl.parse("redlock://s3cret-Pw@h:1,h:2,h:3").nodes().get(2);
    assertThat(node.getUsername()).isNull();
    assertThat(new String(node.getPassword())).isEqualTo("s3cret-Pw");
  }

  @Test
  void theDescriptionHidesThePasswordOfEveryForm() {
    for (String url : List.of("redis://s3cret-Pw@h:1", "redis://user:s3cret-Pw@h:1", "redis://:s3cret-Pw@h:1",
        "rediss://user:s3cret-Pw@h:1/2?timeout=2s", "redis-sentinel://user:s3cret-Pw@s1:1,s2:2/m",
        "redis-cluster://user:s3cret-Pw@n1:1,n2:2", "redis://user:pa@s3cret-Pw@h:1")) {
      RedisUrl parsed = RedisUrl.parse(url);
      assertThat(parsed.description()).as(url).doesNotContain("s3cret").contains("***@");
    }
    assertThat(RedisUrl.parse("redis://s3cret-Pw@h:1").description()).isEqualTo("redis://***@h:1");
    assertThat(RedisUrl.parse("redis://user:s3cret-Pw@h:1?timeout=2s").description())
        .isEqualTo("redis://user:***@h:1?timeout=2s");
    for (String url : List.of("redlock://s3cret-Pw@h:1,h:2,h:3", "redlock://u:s3cret-Pw@h:1,h:2,h:3")) {
      assertThat(RedlockUrl.parse(url).description()).as(url).doesNotContain("s3cret").contains("***@");
    }
  }

  @Test
  void aBadUrlIsRefusedWithoutShowingItsPasswordWhereverThePasswordSits() {
    // Unknown parameters may hold a secret; raw '?', '/' and '#' in a password cut the URL early.
    for (String url : List.of("redis://h:1?password=s3cret-Pw", "redis://h:1?auth=s3cret-Pw",
        "redis://u:s3cret?Pw@h:1", "redis://u:s3cret/Pw@h:1", "redis://s3cret#Pw@h:1",
        "redis://user:s3cret-Pw/x?y@h:1", "redis://u:s3cret?timeout=Pw@h:1",
        "redis://s3cret-Pw@h:notaport", "redis-sentinel://u:s3cret-Pw@s1:x/m",
        "redis-cluster://s3cret-Pw@n1:1/0", "redis://s3cret-Pw@", "rediss://u:s3cret-Pw@h:1?verifyPeer=x",
        "redlock://s3cret-Pw@h:1,h:2", "redlock://u:s3cret?Pw@h:1,h:2,h:3", "redlock://u:s3cret-Pw@h:1,h:1,h:2",
        "redlock://h:1,h:2,h:3?password=s3cret-Pw")) {
      Throwable e = org.assertj.core.api.Assertions.catchThrowable(() -> {
        if (url.startsWith("redlock")) {
          new RedlockBackendProvider().open(url);
        } else {
          new RedisBackendProvider().open(url);
        }
      });
      assertThat(e).as(url).isInstanceOf(IllegalArgumentException.class);
      for (Throwable t = e; t != null; t = t.getCause()) {
        assertThat(t.getMessage()).as(url).doesNotContain("s3cret").doesNotContain("Pw");
      }
    }
  }

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
    assertThatThrownBy(() -> RedisUrl.parse("redis://h1:1,h2:2"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("names one server");
    assertThatThrownBy(() -> RedisUrl.parse("redis://h:1?waitReplicas=two"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'two'");
    assertThatThrownBy(() -> RedisUrl.parse("redis://h:1?waitReplicas=1&waitTimeout=soon"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitTimeout must be a duration such as 50ms or 2s: soon");
    assertThatThrownBy(() -> RedisUrl.parse("redis://h:1?waitReplicas=1&waitTimeout=0ms"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitTimeout must be positive");
  }
}

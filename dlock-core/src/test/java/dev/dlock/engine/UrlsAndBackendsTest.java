package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.internal.Urls;
import org.junit.jupiter.api.Test;

class UrlsAndBackendsTest {

  @Test
  void passwordsAreRedactedInUserInfoAndParameters() {
    assertThat(Urls.redact("rediss://app:s3cret@cache:6380/0")).isEqualTo("rediss://app:***@cache:6380/0");
    assertThat(Urls.redact("jdbc:postgresql://db/x?user=u&password=p4ss&ssl=true"))
        .isEqualTo("jdbc:postgresql://db/x?user=u&password=***&ssl=true");
    assertThat(Urls.redact("zookeeper://h1:2181,h2:2181/app")).isEqualTo("zookeeper://h1:2181,h2:2181/app");
    assertThat(Urls.redact("redis://s3cret-Pw@cache:6379")).isEqualTo("redis://***@cache:6379");
    assertThat(Urls.redact("redis://app:p@ss/w?rd@cache:6379/0?timeout=2s"))
        .isEqualTo("redis://app:***@cache:6379/0?timeout=2s");
    assertThat(Urls.redact("redlock://u:pw@h1:1,h2:2,h3:3")).isEqualTo("redlock://u:***@h1:1,h2:2,h3:3");
    assertThat(Urls.redact("jdbc:mariadb://u:pw@[::1]:3306/db")).isEqualTo("jdbc:mariadb://u:***@[::1]:3306/db");
    assertThat(Urls.redact("jdbc:h2:mem:x;USER=sa;PASSWORD=pw;MODE=x")).isEqualTo("jdbc:h2:mem:x;USER=sa;PASSWORD=***;MODE=x");
    assertThatThrownBy(() -> Urls.decode("pa%zzss", "redis://u:***@h"))
        .hasMessageContaining("redis://u:***@h").hasMessageNotContaining("zz").hasNoCause();
  }

  @Test
  void decodingKeepsPlusSignsAndNamesTheUrlOfABadEscape() {
    assertThat(Urls.decode("p%40ss+w%2Bd", "redlock://u:***@h:1")).isEqualTo("p@ss+w+d");
    assertThatThrownBy(() -> Urls.decode("p%4", "redlock://u:***@h:1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("bad percent-encoding in redlock://u:***@h:1: ");
  }

  @Test
  void theAuthoritySplitsAtTheLastAtSignAndDecodesTheCredentials() {
    assertThat(Urls.authority("app:p%40ss+1@h1:1,h2:2", "u")).isEqualTo(new Urls.Authority("app", "p@ss+1", "h1:1,h2:2"));
    assertThat(Urls.authority("a:b@c@h1:1", "u")).isEqualTo(new Urls.Authority("a", "b@c", "h1:1"));
    assertThat(Urls.authority("app@h1", "u")).isEqualTo(new Urls.Authority("app", null, "h1"));
    assertThat(Urls.authority("h1:1", "u")).isEqualTo(new Urls.Authority(null, null, "h1:1"));
  }

  @Test
  void queryParametersKeepTheirOrderAndRawTextAndSkipEmptyParts() {
    assertThat(Urls.parameters("prefix=a%2Bb+c&&flag&timeout=2s", "u")).containsExactly(
        new Urls.Parameter("prefix", "a+b+c", "prefix=a%2Bb+c"),
        new Urls.Parameter("flag", "", "flag"),
        new Urls.Parameter("timeout", "2s", "timeout=2s"));
    assertThat(Urls.parameters("", "u")).isEmpty();
    assertThatThrownBy(() -> Urls.positiveDuration("nodeTimeout", "0ms"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("nodeTimeout must be positive: 0ms");
  }

  @Test
  void durationParametersTakeShortFormsAndIsoAndNameBadValues() {
    assertThat(Urls.duration("t", "200ms")).isEqualTo(java.time.Duration.ofMillis(200));
    assertThat(Urls.duration("t", "2s")).isEqualTo(java.time.Duration.ofSeconds(2));
    assertThat(Urls.duration("t", "1m")).isEqualTo(java.time.Duration.ofMinutes(1));
    assertThat(Urls.duration("t", "PT0.5S")).isEqualTo(java.time.Duration.ofMillis(500));
    assertThat(Urls.duration("t", "2h")).isEqualTo(java.time.Duration.ofHours(2));
    assertThat(Urls.duration("t", "75")).isEqualTo(java.time.Duration.ofMillis(75));
    assertThatThrownBy(() -> Urls.duration("nodeTimeout", "fast"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nodeTimeout must be a duration such as 50ms or 2s: fast");
    assertThatThrownBy(() -> Urls.duration("nodeTimeout", "PT-1S"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be negative");
  }

  @Test
  void anUnknownSchemeNamesTheSchemeAndTheKnownOnes() {
    assertThatThrownBy(() -> LockClient.connect("nosuch://u:pw@host"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'nosuch'").hasMessageContaining("mem").hasMessageContaining("u:***@")
        .hasMessageNotContaining("pw");
    assertThatThrownBy(() -> LockClient.connect("no-scheme"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scheme");
  }

  @Test
  void memUrlsReachSharedNamedServers() throws Exception {
    try (LockClient a = LockClient.connect("mem:urls-test"); LockClient b = LockClient.connect("mem://urls-test");
        LockClient other = LockClient.connect("mem:urls-test-other")) {
      try (Lease lease = a.lock("x").acquire()) {
        assertThat(b.lock("x").tryAcquire()).isEmpty();
        assertThat(other.lock("x").tryAcquire()).isPresent().get().satisfies(Lease::close);
        assertThat(lease.isValid()).isTrue();
      }
    }
    assertThatThrownBy(() -> LockClient.connect("mem:bad name"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mem:bad name");
  }

  @Test
  void durationsPrintShort() {
    assertThat(Durations.formatNanos(850_000_000L)).isEqualTo("850ms");
    assertThat(Durations.formatNanos(1_250_000_000L)).isEqualTo("1.25s");
    assertThat(Durations.formatNanos(185_000_000_000L)).isEqualTo("3m05s");
  }
}

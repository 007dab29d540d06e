package dev.dlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLDecoder;
import java.net.URLEncoder;
import dev.dlock.spi.LockKind;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Node names: the hand-written encoding is the form encoding every earlier node was named with. */
class NodesTest {

  @ParameterizedTest
  @ValueSource(strings = {"plain-name_1", "bench-1-3fa2c9d1:42", "orders.42", "a b+c%d*e/f", "ünïcødé",
      "锁:资源", "emoji \uD83D\uDD12 lock", "lone \uD800 surrogate", "trailing \uDBFF", ""})
  void ownersAreEncodedAsFormEncodingWithDotsAndStarsEscapedAndDecodeBack(String owner) {
    String expected = URLEncoder.encode(owner, StandardCharsets.UTF_8).replace(".", "%2E").replace("*", "%2A");
    assertThat(Nodes.prefix(owner)).isEqualTo(expected + "-");
    if (!owner.isEmpty() && !owner.contains("\uD800") && !owner.endsWith("\uDBFF")) {
      assertThat(Nodes.ownerOf(Nodes.prefix(owner) + "0000000007")).isEqualTo(owner);
    }
    assertThat(URLDecoder.decode(expected, StandardCharsets.UTF_8)).isNotNull();
  }

  @Test
  void aNameWithNothingToEscapeIsKeptAsItIs() {
    String name = "job-7_a";
    assertThat(Nodes.prefix(name)).isEqualTo(name + "-");
  }

  @Test
  void aDirectoryIsItsKindsPathAndTheEncodedNameWhicheverNameCameBefore() {
    Nodes nodes = new Nodes("/app");
    for (String name : List.of("orders.42", "orders.42", "job-7", "orders.42", "a b")) {
      String encoded = URLEncoder.encode(name, StandardCharsets.UTF_8).replace(".", "%2E");
      assertThat(nodes.dir(name)).as(name).isEqualTo("/app/dlock/locks/" + encoded);
      assertThat(nodes.dir(LockKind.EXCLUSIVE, name)).as(name).isEqualTo(nodes.dir(name));
      assertThat(nodes.dir(LockKind.FAIR, name)).as(name).isEqualTo("/app/dlock/fair/" + encoded);
    }
    assertThat(Nodes.prefix("W", "c:1")).isEqualTo("W-c%3A1-");
    assertThat(Nodes.prefix("R", "plain")).isEqualTo("R-plain-");
  }
}

package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How a waiter counts the nodes that told it its lock is free: a majority of one release wakes it,
 * once; messages of two releases never add up. Waiters that are found never reach the nodes, so
 * none are given.
 */
class RedlockWakesTest {
  private static final String OWNER = "client-1:7";
  private final List<String> woken = new ArrayList<>();
  private final RedlockWakes wakes = new RedlockWakes(3, List.of(), new ScriptCalls(new Keys("t:"), 1000));

  @BeforeEach
  void waiting() {
    wakes.start(woken::add);
    wakes.trying(OWNER, "job");
  }

  @Test
  void theMajorityOfOneReleaseWakesTheWaiterOnce() {
    for (int node = 0; node < 5; node++) {
      wakes.told(node, "11 job", OWNER);
    }
    assertThat(woken).containsExactly("job");
  }

  @Test
  void lateMessagesOfOneReleaseAndEarlyOnesOfTheNextDoNotMakeAMajority() {
    wakes.told(0, "11 job", OWNER);
    wakes.told(1, "11 job", OWNER);
    wakes.told(2, "12 job", OWNER);
    wakes.told(3, "12 job", OWNER);
    assertThat(woken).isEmpty();
    wakes.told(4, "12 job", OWNER);
    assertThat(woken).containsExactly("job");
  }

  @Test
  void aNodeToldTwiceOfOneReleaseCountsOnceAndATryForgetsWhatCameBefore() {
    wakes.told(0, "11 job", OWNER);
    wakes.told(0, "11 job", OWNER);
    wakes.told(1, "11 job", OWNER);
    wakes.trying(OWNER, "job");
    wakes.told(2, "11 job", OWNER);
    wakes.told(3, "11 job", OWNER);
    assertThat(woken).isEmpty();
  }

  @Test
  void aMessageWithoutAReleaseNumberIsIgnored() {
    for (int node = 0; node < 3; node++) {
      wakes.told(node, "job", OWNER);
      wakes.told(node, "x1 job", OWNER);
    }
    assertThat(woken).isEmpty();
  }
}

package dev.dlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The last name's value is derived once while the name repeats, and anew for every other name. */
class LastNameTest {

  @Test
  void aRepeatedNameIsDerivedOnceAndEveryOtherNameGetsItsOwnValue() {
    List<String> derived = new ArrayList<>();
    LastName<String> last = new LastName<>(name -> {
      derived.add(name);
      return "/locks/" + name;
    });

    List<String> got = new ArrayList<>();
    for (String name : List.of("job", "job", "job", "cache", "job", "job")) {
      got.add(last.get(name));
    }

    assertThat(got).containsExactly("/locks/job", "/locks/job", "/locks/job", "/locks/cache", "/locks/job",
        "/locks/job");
    assertThat(derived).as("names derived").containsExactly("job", "cache", "job");
    // An equal name that is another String instance is the same name.
    assertThat(last.get(new String("job"))).isEqualTo("/locks/job");
    assertThat(derived).hasSize(3);
  }

  @Test
  void aMissingDerivationIsRefusedNamingIt() {
    assertThatThrownBy(() -> new LastName<String>(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("derive");
  }
}

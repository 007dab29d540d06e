package dev.dlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * No URL form shows its password: not in any exception message (causes and suppressed ones
 * included), not in a client's or lease's description, not in the log at any level. The cases run
 * in a child JVM ({@link SecretProbe}) whose log is turned up to TRACE for the library, Curator
 * and the ZooKeeper client (the server's own log stays off: it is not the library's), and
 * everything it printed is searched.
 */
class SecretsTest {

  @Test
  void noUrlFormShowsItsPasswordInAnyMessageDescriptionOrLogLine() throws Exception {
    String output;
    try (ChildJvm probe = ChildJvm.start(SecretProbe.class, List.of(
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=trace",
        "-Dorg.slf4j.simpleLogger.log.dev.dlock=trace",
        "-Dorg.slf4j.simpleLogger.log.org.apache.zookeeper=trace",
        "-Dorg.slf4j.simpleLogger.log.org.apache.curator=trace",
        "-Dorg.slf4j.simpleLogger.log.org.apache.curator.test=off"))) {
      assertThat(probe.await(Duration.ofSeconds(120))).as("the probe's exit code; its output:%n%s", probe.output())
          .isZero();
      output = probe.output();
    }
    assertThat(output).as("the probe ran to the end").contains("DONE");
    assertThat(output).as("the log was at TRACE").contains("TRACE");
    assertThat(output)
        .contains("CASE bare-secret -> java.lang.IllegalArgumentException")
        .contains("CASE bad-escape -> java.lang.IllegalArgumentException")
        .contains("CASE bad-parameter -> java.lang.IllegalArgumentException")
        .contains("CASE unknown-parameter -> java.lang.IllegalArgumentException")
        .contains("CASE bad-host -> java.lang.IllegalArgumentException")
        .contains("CASE no-server -> dev.dlock.BackendUnavailableException")
        .contains("CASE no-servers -> dev.dlock.BackendUnavailableException")
        .contains("CASE unescaped -> dev.dlock.BackendUnavailableException")
        .contains("CASE working -> LockClient[")
        .contains("CASE wrong-password -> dev.dlock.BackendUnavailableException")
        .contains("NoAuth")
        .contains("CASE timeout -> dev.dlock.LockTimeoutException")
        .contains("CASE server-gone -> ")
        .contains("alice:***@");
    assertThat(output).as("everything the probe printed and logged").doesNotContain(SecretProbe.SECRET);
  }
}

package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A backend pointed at a server of the user's: the lab uses it and leaves its faults to the user. */
class LabUrlTest {
  @Test
  void aUsersServerRunsTheWorkerFaultsAndSkipsTheServerFaults() throws Exception {
    Path dir = Files.createTempDirectory("lab-url");
    try (RedisProcess own = RedisProcess.start(dir.resolve("own"), RedisProcess.Persistence.NONE)) {
      StringWriter said = new StringWriter();
      List<CellResult> results;
      try (Lab lab = new Lab(LabSettings.QUICK, Map.of("redis", own.url()), dir.resolve("runs"),
          new PrintWriter(said, true))) {
        results = lab.run(List.of(new CellSpec("S8", "F1", "critical"), new CellSpec("S8", "F8", "critical")), 1);
        assertThat(lab.failures()).isEmpty();
      }
      assertThat(results).extracting(r -> r.info().fault()).containsExactly("F1");
      assertThat(said.toString()).contains("skipped S8 x F8").doesNotContain("starting redis");
      assertThat(results.get(0).grants()).as("grants on the user's server").isPositive();
      // The workers' keys are on the user's server, not on one the lab started.
      RedisClient client = RedisClient.create(own.url());
      try (StatefulRedisConnection<String, String> c = client.connect()) {
        assertThat(c.sync().keys("*lab-S8-F1-1*")).as("the lock's keys").isNotEmpty();
      } finally {
        client.shutdown();
      }
    }
  }

  @Test
  void anUnknownBackendIsRefusedByName() {
    assertThatThrownBy(() -> Lab.checkUrls(Map.of("mongo", "mongodb://x")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'mongo'");
  }
}

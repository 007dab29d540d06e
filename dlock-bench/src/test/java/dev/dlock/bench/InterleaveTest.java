package dev.dlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./bench interleave} on the in-JVM targets: what it prints and appends, and what it refuses. */
class InterleaveTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream progress = new ByteArrayOutputStream();

  private int run(Path md, String... args) {
    return Interleave.run(args, md, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(progress, true, StandardCharsets.UTF_8));
  }

  @Test
  void everyTargetGetsAP50AndItsFractionOfTheFirstPerBlock(@TempDir Path dir) throws Exception {
    Path md = dir.resolve("r.md");
    Files.writeString(md, "# earlier results\n");

    int status = run(md, "--targets", "reentrant,mem", "--blocks", "3", "--cycles", "200", "--warmup", "50");

    assertThat(status).as("exit status; progress:%n%s", progress).isZero();
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text).containsPattern("(?m)^reentrant +\\| +[0-9.]+ us \\| +[0-9.]+-[0-9.]+ us \\| +1\\.00 \\| +1\\.00-1\\.00$")
        .containsPattern("(?m)^mem +\\| +[0-9.]+ us \\| +[0-9.]+-[0-9.]+ us \\| +[0-9.]+ \\| +[0-9.]+-[0-9.]+$");
    assertThat(progress.toString(StandardCharsets.UTF_8))
        .contains("bench: interleave block 1/3: reentrant ", "bench: interleave block 3/3: reentrant ")
        .containsPattern("block 2/3: reentrant [0-9.]+ us; mem [0-9.]+ us \\([0-9.]+\\)");
    assertThat(Files.readString(md)).startsWith("# earlier results\n")
        .contains("## W1, interleaved", "`./bench interleave --targets reentrant,mem", "| target | p50, median of blocks |");
  }

  @Test
  void theTableTakesMediansAndRangesOfTheBlocks() {
    long[][] p50s = {{100_000, 200_000, 110_000}, {125_000, 250_000, 220_000}};

    String text = Interleave.table(List.of("floor", "lock"), p50s).text();

    // lock's fractions of floor by block: 0.8, 0.8, 0.5
    assertThat(text).containsPattern("(?m)^floor +\\| +110\\.0 us \\| +100\\.0-200\\.0 us \\| +1\\.00 \\| +1\\.00-1\\.00$")
        .containsPattern("(?m)^lock +\\| +220\\.0 us \\| +125\\.0-250\\.0 us \\| +0\\.80 \\| +0\\.50-0\\.80$");
  }

  @Test
  void badCommandLinesNameTheValue(@TempDir Path dir) {
    Path md = dir.resolve("r.md");
    assertThat(run(md, "--targets", "mem")).isEqualTo(64);
    assertThat(run(md, "--targets", "mem,nosuch")).isEqualTo(64);
    assertThat(run(md, "--targets", "mem,reentrant", "--blocks", "0")).isEqualTo(64);
    assertThat(progress.toString(StandardCharsets.UTF_8))
        .contains("--targets takes two or more targets, not [mem]", "unknown target 'nosuch'",
            "not 0, 3000, 2000");
    assertThat(md).doesNotExist();
  }
}

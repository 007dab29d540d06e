package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dlock run} and {@code dlock status} as a user runs them: separate JVMs coordinating through
 * the default embedded H2 database in their (temporary) home directory.
 */
class RunCommandProcessIT {
  @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
  Path home;

  @Test
  void stdinStdoutAndTheExitStatusPassThrough() throws Exception {
    try (CliProcess run = CliProcess.start(home, "run", "--name", "job", "--",
        "sh", "-c", "read x; echo got:$x; exit 3")) {
      run.send("hello");
      assertThat(run.nextLine()).isEqualTo("got:hello");
      assertThat(run.exitCode()).isEqualTo(3);
    }
  }

  @Test
  void aBusyLockExitsSeventyFiveWithOneLineAndFreesOnExit() throws Exception {
    try (CliProcess holder = CliProcess.start(home, "run", "--name", "nightly", "--",
        "sh", "-c", "echo holding; read x; exit 0")) {
      assertThat(holder.nextLine()).isEqualTo("holding");

      try (CliProcess busy = CliProcess.start(home, "run", "--name", "nightly", "--wait", "0s", "--", "true")) {
        assertThat(busy.exitCode()).isEqualTo(ExitCodes.BUSY);
        assertThat(busy.errLines()).singleElement().asString().contains("'nightly'", "busy");
      }
      try (CliProcess status = CliProcess.start(home, "status", "nightly")) {
        assertThat(status.exitCode()).isZero();
        assertThat(String.join("\n", status.outLines())).contains("nightly", "dlock-cli-");
      }

      holder.closeStdin();
      assertThat(holder.exitCode()).isZero();
    }
    try (CliProcess after = CliProcess.start(home, "run", "--name", "nightly", "--wait", "0s", "--", "true")) {
      assertThat(after.exitCode()).isZero();
    }
  }

  @Test
  void aLostLeaseStopsTheCommandAndSaysWhy() throws Exception {
    try (CliProcess run = CliProcess.start(home, "run", "--name", "report", "--lease", "1s", "--",
        "sh", "-c", "echo working; trap 'echo terminated; exit 143' TERM; while :; do sleep 0.05; done")) {
      assertThat(run.nextLine()).isEqualTo("working");
      // Another owner takes the row, as after a pause longer than the lease: the next renewal is refused.
      try (Connection db = DriverManager.getConnection(h2Url());
          Statement st = db.createStatement()) {
        assertThat(st.executeUpdate(
            "UPDATE dlock_locks SET owner = 'thief:1', token = token + 1 WHERE name = 'report'")).isEqualTo(1);
      }
      assertThat(run.nextLine()).isEqualTo("terminated");
      assertThat(run.exitCode()).isEqualTo(ExitCodes.LOST);
      // The shell may also say that its sleep was terminated: the whole group got SIGTERM.
      assertThat(run.errLines()).filteredOn(l -> l.startsWith("dlock:")).singleElement().asString()
          .contains("'report'", "lost", "stopped", "no longer held");
    }
  }

  /** The same embedded database the processes use, joined through H2's auto-server. */
  private String h2Url() {
    return "jdbc:h2:file:" + home.resolve(".dlock").resolve("locks").toAbsolutePath() + ";AUTO_SERVER=TRUE";
  }

  @Test
  void processesOpeningTheDefaultDatabaseAtOnceAllGetIn() throws Exception {
    List<CliProcess> runs = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        runs.add(CliProcess.start(home, "run", "--name", "first-open-" + i, "--", "true"));
      }
      for (CliProcess run : runs) {
        assertThat(run.exitCode()).as("stderr: %s", run.err).isZero();
      }
    } finally {
      runs.forEach(CliProcess::close);
    }
  }

  @Test
  void anUnreachableDatabaseIsOneLineNamingTheUrl() throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:1/nowhere?user=u&password=secret";
    try (CliProcess run = CliProcess.start(home, "run", "--url", url, "--name", "x", "--", "true")) {
      assertThat(run.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
      assertThat(run.errLines()).singleElement().asString()
          .startsWith("dlock: ").contains("127.0.0.1:1/nowhere").doesNotContain("secret");
    }
  }

  @Test
  void aBadDurationIsAUsageError() throws Exception {
    try (CliProcess run = CliProcess.start(home, "run", "--name", "x", "--wait", "soon", "--", "true")) {
      assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(String.join("\n", run.errLines())).contains("'soon'", "500ms");
    }
    assertThat(Files.exists(home.resolve(".dlock"))).isFalse();
  }
}

package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two worker JVMs run S8-wrong on a real Redis against an H2 resource, as the coordinator runs them. */
class WorkerTest {
  @TempDir
  Path dir;

  /** A worker JVM with its stdout lines collected. */
  static final class Run {
    final Process process;
    final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    final CountDownLatch ready = new CountDownLatch(1);
    final CountDownLatch gap = new CountDownLatch(1);
    final CountDownLatch held = new CountDownLatch(1);
    /** Counted down once every line is read: the process has ended and its stdout is drained. */
    final CountDownLatch drained = new CountDownLatch(1);

    Run(List<String> command, Path stderr) throws Exception {
      process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
      Thread reader = new Thread(() -> {
        try (BufferedReader in = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line; (line = in.readLine()) != null; ) {
            lines.add(line);
            if (line.equals("READY")) {
              ready.countDown();
            } else if (line.equals("GAP")) {
              gap.countDown();
            } else if (line.equals("HELD")) {
              held.countDown();
            }
          }
        } catch (Exception e) {
          // The stream ends with the process.
        } finally {
          drained.countDown();
        }
      });
      reader.setDaemon(true);
      reader.start();
    }

    /** Whether the process ended and every line it wrote was read, within a minute. */
    boolean ended() throws InterruptedException {
      return process.waitFor(60, TimeUnit.SECONDS) && drained.await(60, TimeUnit.SECONDS);
    }

    void say(String line) throws Exception {
      OutputStream in = process.getOutputStream();
      in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
    }
  }

  /** Starts worker {@code w} with its history in the temp dir, lock {@code job}, and {@code args}. */
  Run start(String w, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), Worker.class.getName(), "--process", w,
        "--history", dir.resolve(w + ".jsonl").toString(), "--lock", "job"));
    command.addAll(List.of(args));
    return new Run(command, dir.resolve(w + ".err"));
  }

  /** The resource every worker of a test writes to: an H2 file in the temp dir. */
  private String resource() {
    return "jdbc:h2:file:" + dir.resolve("lab") + ";AUTO_SERVER=TRUE";
  }

  /**
   * Worker w1 alone on {@code redis}, critical workload on a fresh resource, 300 ms waits, 20 ms of
   * work, told GO once READY; {@code args} give the scheme and the rest.
   */
  private Run alone(RedisProcess redis, String... args) throws Exception {
    try (Connection c = DriverManager.getConnection(resource())) {
      Resource.reset(c, 0);
    }
    List<String> all = new ArrayList<>(List.of("--url", redis.url(), "--workload", "critical", "--wait-ms",
        "300", "--work-ms", "20", "--duration-ms", "60000", "--resource", resource()));
    all.addAll(List.of(args));
    Run r = start("w1", all.toArray(String[]::new));
    assertThat(r.ready.await(60, TimeUnit.SECONDS)).as("READY").isTrue();
    r.say("GO");
    return r;
  }

  @Test
  void s4WorkerStopsInTheGapAndLeavesAKeyWithoutExpiry() throws Exception {
    try (RedisProcess redis = RedisProcess.start(dir.resolve("redis"), RedisProcess.Persistence.NONE)) {
      Run r = alone(redis, "--scheme", "S4", "--gap", "--lease-ms", "500");
      assertThat(r.gap.await(60, TimeUnit.SECONDS)).isTrue();
      assertThat(r.process.isAlive()).as("parked in the gap").isTrue();
      r.process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      assertThat(RedisProcessTest.withClient(redis, admin -> admin.get("lab:job"))).isEqualTo("w1:1");
      assertThat(RedisProcessTest.withClient(redis, admin -> admin.pttl("lab:job").toString())).isEqualTo("-1");
      assertThat(History.read(dir.resolve("w1.jsonl"))).extracting(Event::op, Event::type)
          .containsExactly(org.assertj.core.groups.Tuple.tuple("acquire", "invoke"));
    }
  }

  /**
   * With {@code --gap-before-write}, S4's gap is right before its write, inside its hold (where F2
   * pauses it), and it goes on after it, rather than parking between SETNX and EXPIRE for a kill.
   */
  @Test
  void s4WorkerToldToGapBeforeItsWriteStopsInsideItsHold() throws Exception {
    try (RedisProcess redis = RedisProcess.start(dir.resolve("redis"), RedisProcess.Persistence.NONE)) {
      Run r = alone(redis, "--scheme", "S4", "--gap", "--gap-before-write", "--lease-ms", "5000");
      assertThat(r.gap.await(60, TimeUnit.SECONDS)).isTrue();
      r.say("END");
      assertThat(r.ended()).as("went on after its gap, and ended").isTrue();
      List<String> lines = List.copyOf(r.lines);
      int gap = lines.indexOf("GAP");
      assertThat(lines.subList(0, gap)).as("before the gap").hasSize(2).startsWith("READY")
          .last().asString().startsWith("ENTER ");
      assertThat(lines.subList(gap, lines.size())).as("from the gap").startsWith("GAP", "EXIT", "RELEASED");
    }
  }

  @Test
  void aWorkerToldToHoldStaysInItsHoldUntilFreed() throws Exception {
    try (RedisProcess redis = RedisProcess.start(dir.resolve("redis"), RedisProcess.Persistence.NONE)) {
      Run r = alone(redis, "--scheme", "S7", "--lease-ms", "5000");
      r.say("HOLD");
      assertThat(r.held.await(60, TimeUnit.SECONDS)).as("HELD").isTrue();
      // Alone, every try of w1 takes the key, so its value counts w1's holds.
      long holds = r.lines.stream().filter(l -> l.startsWith("ENTER")).count();
      assertThat(RedisProcessTest.withClient(redis, admin -> admin.get("lab:job"))).isEqualTo("w1:" + holds);
      assertThat(r.lines.get(r.lines.size() - 1)).as("nothing since HELD").isEqualTo("HELD");
      r.say("FREE");
      r.say("END");
      assertThat(r.ended()).isTrue();
      int held = r.lines.indexOf("HELD");
      assertThat(r.lines.subList(held + 1, held + 3)).containsExactly("EXIT", "RELEASED");
      assertThat(History.read(dir.resolve("w1.jsonl"))).filteredOn(e -> e.op().equals("release"))
          .allMatch(e -> e.info().equals("freed=w1"));
    }
  }

  @Test
  void optimisticFlashSellsTheStockExactlyOnce() throws Exception {
    String resource = resource();
    try (Connection c = DriverManager.getConnection(resource)) {
      Resource.reset(c, 15);
      List<Run> runs = List.of(
          start("w1", "--scheme", "S2-h2", "--workload", "flash", "--lease-ms", "1000", "--wait-ms", "0",
              "--work-ms", "2", "--duration-ms", "30000", "--resource", resource),
          start("w2", "--scheme", "S2-h2", "--workload", "flash", "--lease-ms", "1000", "--wait-ms", "0",
              "--work-ms", "2", "--duration-ms", "30000", "--resource", resource));
      for (Run r : runs) {
        assertThat(r.ready.await(60, TimeUnit.SECONDS)).isTrue();
      }
      for (Run r : runs) {
        r.say("GO");
      }
      List<String> seen = new ArrayList<>();
      for (String w : List.of("w1", "w2")) {
        Run r = runs.get(w.equals("w1") ? 0 : 1);
        assertThat(r.ended()).isTrue();
        assertThat(r.process.exitValue()).as(Files.readString(dir.resolve(w + ".err"))).isZero();
        assertThat(r.lines).containsExactly("READY", "DONE");
        History.read(dir.resolve(w + ".jsonl")).forEach(e -> seen.add(e.op() + " " + e.info()));
      }
      assertThat(Resource.stock(c)).isZero();
      assertThat(seen).hasSize(15).allMatch(e -> e.startsWith("buy "));
      assertThat(seen.stream().map(e -> Integer.parseInt(e.substring(4))).sorted().toList())
          .isEqualTo(java.util.stream.IntStream.rangeClosed(1, 15).boxed().toList());
    }
  }

  @Test
  void aBadOptionIsNamedOnStderrWithStatusOne() throws Exception {
    Run r = start("w1", "--scheme", "S4", "--workload", "critical", "--lease-ms", "soon", "--url", "redis://x",
        "--wait-ms", "0", "--work-ms", "0", "--duration-ms", "0", "--resource", "jdbc:h2:mem:x");
    assertThat(r.ended()).isTrue();
    assertThat(r.process.exitValue()).isEqualTo(1);
    assertThat(Files.readString(dir.resolve("w1.err"))).contains("--lease-ms", "'soon'");
    assertThat(r.lines).isEmpty();
  }

  @Test
  void twoWorkersTakeTurnsAndRecordTheirHistories() throws Exception {
    String resource = resource();
    try (RedisProcess redis = RedisProcess.start(dir.resolve("redis"), RedisProcess.Persistence.NONE);
        Connection c = DriverManager.getConnection(resource)) {
      Resource.reset(c, 0);
      List<Run> runs = new ArrayList<>();
      for (String w : List.of("w1", "w2")) {
        runs.add(start(w, "--scheme", "S8-wrong", "--url", redis.url(), "--workload", "critical",
            "--lease-ms", "5000", "--wait-ms", "300", "--work-ms", "20", "--duration-ms", "2000",
            "--resource", resource));
      }
      for (Run r : runs) {
        assertThat(r.ready.await(60, TimeUnit.SECONDS)).as("READY").isTrue();
      }
      for (Run r : runs) {
        r.say("GO");
      }
      for (int i = 0; i < runs.size(); i++) {
        Run r = runs.get(i);
        assertThat(r.ended()).isTrue();
        assertThat(r.process.exitValue()).as(Files.readString(dir.resolve("w" + (i + 1) + ".err"))).isZero();
      }
      long accepted = 0;
      List<long[]> holds = new ArrayList<>();
      for (int i = 0; i < runs.size(); i++) {
        String w = "w" + (i + 1);
        List<String> out = runs.get(i).lines;
        assertThat(out.get(0)).isEqualTo("READY");
        assertThat(out.get(out.size() - 1)).isEqualTo("DONE");
        List<String> body = out.subList(1, out.size() - 1);
        assertThat(body).isNotEmpty();
        for (int j = 0; j < body.size(); j++) {
          assertThat(body.get(j)).matches(List.of("ENTER -1", "EXIT", "RELEASED").get(j % 3));
        }
        List<Event> events = History.read(dir.resolve(w + ".jsonl"));
        assertThat(events).allMatch(e -> e.process().equals(w) && e.lock().equals("job"));
        assertThat(events.stream().filter(e -> e.op().equals("enter")).count()).isEqualTo(body.size() / 3);
        assertThat(events.stream().filter(e -> e.op().equals("release")))
            .allMatch(e -> e.type().equals("ok") && e.info().equals("freed=" + w));
        accepted += events.stream().filter(e -> e.op().equals("write") && e.type().equals("ok")).count();
        long enter = 0;
        for (Event e : events) {
          if (e.op().equals("enter")) {
            enter = e.nanos();
          } else if (e.op().equals("exit")) {
            holds.add(new long[] {enter, e.nanos()});
          }
        }
      }
      assertThat(Resource.writes(c)).isEqualTo(accepted);
      holds.sort((a, b) -> Long.compare(a[0], b[0]));
      for (int i = 1; i < holds.size(); i++) {
        assertThat(holds.get(i)[0]).as("no two holds overlap").isGreaterThan(holds.get(i - 1)[1]);
      }
    }
  }
}

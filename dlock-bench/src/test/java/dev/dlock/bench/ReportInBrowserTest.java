package dev.dlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The browser check, as dlock-lab's: the report of a real (tiny) run opened in headless Chromium
 * (Debian's {@code chromium}). It fails on any console error, saves a screenshot next to the report
 * in {@code target/browser-check/}, and reads the DOM Chromium built: one SVG chart per workload, its
 * {@code viewBox} restored by the HTML parser (jsoup writes attribute names in lower case). It runs
 * in the {@code browser} profile, which {@code .ci/run} enables after installing Chromium; without
 * Chromium it fails, naming the package.
 */
@Tag("browser")
class ReportInBrowserTest {
  @Test
  void theReportOfARunRendersWithoutAConsoleError() throws Exception {
    Path target = Path.of("target", "browser-check").toAbsolutePath();
    Files.createDirectories(target);
    Settings s = Settings.parse("--workloads", "W1,W4", "-f", "0", "-wi", "0", "-i", "1", "-r", "100ms",
        "--out", target.resolve("bench-results.md").toString());
    ResultTable table = BenchMain.run(s, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertThat(table.rows()).as("rows of the run").hasSize(4).allMatch(r -> r.failure() == null);
    Path report = HtmlReport.file(s.out());
    HtmlReport.write(report, table, s, BenchMain.legend(s), "browser check");
    Path screenshot = target.resolve("bench-report.png");
    Files.deleteIfExists(screenshot);

    String log = chromium("--enable-logging=stderr", "--v=0", "--screenshot=" + screenshot,
        "--window-size=1200,1600", report.toUri().toString());
    List<String> console = new ArrayList<>();
    for (String line : log.split("\n")) {
      if (line.contains("CONSOLE") || line.contains("Uncaught")) {
        console.add(line);
      }
    }
    assertThat(console).as("console messages of the report").noneMatch(l -> l.contains("ERROR") || l.contains("Uncaught"));
    assertThat(screenshot).as("the screenshot").exists();
    assertThat(Files.size(screenshot)).as("bytes of the screenshot").isGreaterThan(10_000);

    String dom = chromium("--dump-dom", report.toUri().toString());
    assertThat(count(dom, "<svg ")).as("charts in the DOM").isEqualTo(2);
    assertThat(count(dom, "viewBox=\"0 0 960 ")).as("charts with a viewBox").isEqualTo(2);
    assertThat(dom).contains("id=\"chart-W1\"").contains("id=\"chart-W4\"").contains("<table>");
  }

  private static int count(String text, String part) {
    Matcher m = Pattern.compile(Pattern.quote(part)).matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  /** Runs headless Chromium with {@code args}; returns what it printed, stdout and stderr together. */
  private static String chromium(String... args) throws IOException, InterruptedException {
    String binary = List.of("/usr/bin/chromium", "/usr/bin/chromium-browser").stream()
        .filter(p -> new File(p).canExecute()).findFirst()
        .orElseThrow(() -> new AssertionError("the browser check needs Chromium: apt-get install chromium"));
    List<String> command = new ArrayList<>(List.of(binary, "--headless=new", "--no-sandbox", "--disable-gpu",
        "--user-data-dir=" + Files.createTempDirectory("chromium")));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("chromium ended").isTrue();
    assertThat(p.exitValue()).as("chromium's exit; it said:\n%s", out).isZero();
    return out;
  }
}

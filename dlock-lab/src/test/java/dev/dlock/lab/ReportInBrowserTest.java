package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The browser check: a real report, of a real run, opened in headless Chromium (Debian's
 * {@code chromium}). It fails on any console error and saves a screenshot next to the report in
 * {@code target/}. It runs in the {@code browser} profile, which {@code .ci/run} enables after
 * installing Chromium; without Chromium it fails, naming the package.
 */
@Tag("browser")
class ReportInBrowserTest {
  @Test
  void theReportRendersWithoutAConsoleError() throws Exception {
    Path dir = Files.createTempDirectory("lab-browser");
    List<CellResult> results;
    try (Lab lab = new Lab(LabSettings.QUICK, Map.of(), dir, new PrintWriter(System.out, true))) {
      // One cell draws every part of the report: holds with and without overlap, a fault window.
      results = lab.run(List.of(new CellSpec("S7", "F2", "critical")), 1);
      assertThat(lab.failures()).as("runs that could not run").isEmpty();
    }
    Path target = Path.of("target", "browser-check").toAbsolutePath();
    Files.createDirectories(target);
    Path report = target.resolve("lab-report.html");
    HtmlReport.write(report, Cell.group(results), "dlock lab", "browser check");
    Path screenshot = target.resolve("lab-report.png");
    Files.deleteIfExists(screenshot);

    String log = chromium("--enable-logging=stderr", "--v=0", "--screenshot=" + screenshot,
        "--window-size=1200,2400", report.toUri().toString());
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
    assertThat(dom).as("the DOM after loading").contains("id=\"matrix\"").contains("<svg");
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

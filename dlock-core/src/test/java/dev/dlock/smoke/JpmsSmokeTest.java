package dev.dlock.smoke;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClient;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The module's exports, seen from a real module on the module path: a tiny module that requires
 * {@code dev.dlock.core} compiles and runs a lock over {@code mem:} (so {@code uses}/{@code provides}
 * find the mem backend), and the same module cannot compile a use of the hidden engine. Fails,
 * never skips, when it cannot compile or run.
 */
class JpmsSmokeTest {
  private static final String MODULE_INFO = "module smoke { requires dev.dlock.core; }\n";
  private static final String MAIN = """
      package smoke;

      import dev.dlock.Lease;
      import dev.dlock.LockClient;

      public class Main {
        public static void main(String[] args) throws Exception {
          if (!LockClient.class.getModule().isNamed()) {
            throw new AssertionError("dlock ran on the class path, not as a module");
          }
          try (LockClient client = LockClient.connect("mem:");
              Lease lease = client.lock("smoke").acquire()) {
            System.out.println(LockClient.class.getModule().getName() + " token " + lease.token());
          }
        }
      }
      """;
  private static final String ENGINE_USE = """
      package smoke;

      public class Peek {
        Object engine = dev.dlock.engine.Engine.class;
      }
      """;

  @TempDir
  Path dir;

  @Test
  void aModuleUsesTheApiAndCannotSeeTheEngine() throws Exception {
    String modulePath = modulePath();
    Path src = write("src", "smoke/Main.java", MAIN);
    Path out = dir.resolve("out");

    Compiled ok = compile(modulePath, src, out);
    assertThat(ok.succeeded).as("compiling a module that uses the API:%n%s", ok.log).isTrue();

    Process run = new ProcessBuilder(javaBinary(), "--module-path", modulePath + File.pathSeparator + out,
        "-m", "smoke/smoke.Main").redirectErrorStream(true).start();
    assertThat(run.waitFor(60, TimeUnit.SECONDS)).as("the smoke module ends").isTrue();
    String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(run.exitValue()).as("the smoke module's exit, output:%n%s", output).isZero();
    assertThat(output).contains("dev.dlock.core token ");

    Path hidden = write("hidden", "smoke/Peek.java", ENGINE_USE);
    Compiled refused = compile(modulePath, hidden, dir.resolve("hidden-out"));
    assertThat(refused.succeeded).as("compiling a use of dev.dlock.engine must fail").isFalse();
    assertThat(refused.log).contains("dev.dlock.engine").contains("does not export");
  }

  private record Compiled(boolean succeeded, String log) {}

  private Compiled compile(String modulePath, Path src, Path out) throws IOException {
    // java.util.spi.ToolProvider, not javax.tools: should the test ever run patched into
    // dev.dlock.core, that module does not read java.compiler.
    ToolProvider javac = ToolProvider.findFirst("javac").orElse(null);
    assertThat(javac).as("a JDK with javac (ToolProvider.findFirst(\"javac\"))").isNotNull();
    // An empty class path: in-process javac would otherwise read the test JVM's class path, where
    // the engine sits in the unnamed module and the refusal would not be the module's.
    Path emptyClassPath = Files.createDirectories(dir.resolve("empty-class-path"));
    List<String> args = new ArrayList<>(List.of("--module-path", modulePath,
        "--class-path", emptyClassPath.toString(), "-d", out.toString()));
    try (var walk = Files.walk(src)) {
      walk.filter(p -> p.toString().endsWith(".java")).map(Path::toString).forEach(args::add);
    }
    StringWriter log = new StringWriter();
    PrintWriter pw = new PrintWriter(log);
    int code = javac.run(pw, pw, args.toArray(String[]::new));
    pw.flush();
    return new Compiled(code == 0, log.toString());
  }

  private Path write(String root, String file, String source) throws IOException {
    Path src = dir.resolve(root);
    Files.createDirectories(src.resolve(file).getParent());
    Files.writeString(src.resolve("module-info.java"), MODULE_INFO);
    Files.writeString(src.resolve(file), source);
    return src;
  }

  /** dlock-core's classes (with their module-info) and the slf4j module they require. */
  private static String modulePath() throws URISyntaxException {
    Path core = location(LockClient.class);
    assertThat(core.resolve("module-info.class")).as("dlock-core's module descriptor").exists();
    // JSpecify is a static requirement: needed to compile against the API, not to run it.
    return core + File.pathSeparator + location(org.slf4j.Logger.class) + File.pathSeparator
        + location(org.jspecify.annotations.NullMarked.class);
  }

  private static Path location(Class<?> c) throws URISyntaxException {
    return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  private static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}

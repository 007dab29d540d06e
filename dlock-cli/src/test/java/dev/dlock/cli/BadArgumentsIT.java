package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad arguments fail at once, before dlock connects anywhere: the URL points at a loopback socket
 * that records whether anyone connected. The message names the option and the value, and never
 * the password in the URL.
 */
class BadArgumentsIT {
  private static final String SECRET = "s3cret-Pw";

  @TempDir Path home;
  private ServerSocket listener;

  @BeforeEach
  void listen() throws Exception {
    listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
  }

  @AfterEach
  void close() throws Exception {
    listener.close();
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(List.of("run", "--name", "", "--", "true"), 64, List.of("--name", "''", "empty")),
        Arguments.of(List.of("run", "--name", "x", "--lease", "0s", "--", "true"), 64, List.of("--lease", "'0s'")),
        Arguments.of(List.of("run", "--name", "x", "--lease", "50ms", "--", "true"), 64,
            List.of("--lease", "'50ms'", "100ms")),
        Arguments.of(List.of("run", "--name", "x", "--wait", "9000h", "--", "true"), 64,
            List.of("--wait", "'9000h'", "year")),
        Arguments.of(List.of("run", "--name", "x", "--kill-after", "soon", "--", "true"), 64,
            List.of("--kill-after", "'soon'")),
        Arguments.of(List.of("run", "--name", "x", "--", "no-such-command-here"), ExitCodes.CANNOT_RUN,
            List.of("'no-such-command-here'")),
        Arguments.of(List.of("status", ""), 64, List.of("NAME", "''", "empty")));
  }

  @ParameterizedTest
  @MethodSource("cases")
  void isRejectedBeforeConnecting(List<String> args, int status, List<String> named) throws Exception {
    String[] withUrl = Stream.concat(Stream.of(args.get(0), "--url",
            "redis://" + SECRET + "@127.0.0.1:" + listener.getLocalPort()), args.stream().skip(1))
        .toArray(String[]::new);
    try (CliProcess run = CliProcess.start(home, withUrl)) {
      assertThat(run.exitCode()).isEqualTo(status);
      List<String> err = run.errLines();
      assertThat(err).first().asString().startsWith("dlock: ").contains(named);
      assertThat(String.join("\n", err)).doesNotContain(SECRET);
    }
    // A connection made and closed while dlock ran would still be waiting here to be accepted.
    listener.setSoTimeout(1);
    assertThatThrownBy(listener::accept).as("dlock connected to the server").isInstanceOf(SocketTimeoutException.class);
  }
}

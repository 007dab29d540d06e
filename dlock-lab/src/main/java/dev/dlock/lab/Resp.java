package dev.dlock.lab;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Admin commands to a lab redis-server or Sentinel on 127.0.0.1, one connection each call: the
 * commands are sent in order on that connection, and every reply is read. A reply is a
 * {@code String} (simple or bulk; null for a nil), a {@code Long} or a {@code List} of replies.
 *
 * <p>Why not Lettuce: the injector must ask servers that are paused, dead or failing over, with a
 * short timeout and no reconnects, retries or threads left behind.
 */
final class Resp {
  private static final int TIMEOUT_MILLIS = 2000;

  private Resp() {}

  /** Sends one command to 127.0.0.1:{@code port}; its reply. */
  static Object call(int port, String... command) {
    return calls(port, List.<String[]>of(command)).get(0);
  }

  /**
   * Sends {@code commands} on one connection, in order; their replies.
   *
   * @throws UncheckedIOException   if the server cannot be reached or does not answer within 2 s
   * @throws IllegalStateException  naming the command and the server's error, for an error reply
   */
  static List<Object> calls(int port, List<String[]> commands) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), TIMEOUT_MILLIS);
      s.setSoTimeout(TIMEOUT_MILLIS);
      OutputStream out = s.getOutputStream();
      for (String[] command : commands) {
        out.write(encode(command));
      }
      out.flush();
      InputStream in = new BufferedInputStream(s.getInputStream());
      List<Object> replies = new ArrayList<>();
      for (String[] command : commands) {
        Object reply = read(in);
        if (reply instanceof Error e) {
          throw new IllegalStateException(String.join(" ", command) + " on port " + port + " failed: " + e.message);
        }
        replies.add(reply);
      }
      return replies;
    } catch (IOException e) {
      throw new UncheckedIOException("redis on 127.0.0.1:" + port + " did not answer " + commands.size()
          + " command(s) starting with " + commands.get(0)[0] + ": " + e, e);
    }
  }

  /** Sends one command whose reply is a flat list of field, value, ...; those pairs in order. */
  static Map<String, String> fields(int port, String... command) {
    return pairs(call(port, command));
  }

  /** A reply that is a flat list of field, value, ... as a map in its order. */
  static Map<String, String> pairs(Object reply) {
    Map<String, String> map = new LinkedHashMap<>();
    List<?> list = (List<?>) reply;
    for (int i = 0; i + 1 < list.size(); i += 2) {
      map.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
    }
    return map;
  }

  private static byte[] encode(String[] command) {
    StringBuilder b = new StringBuilder("*").append(command.length).append("\r\n");
    for (String arg : command) {
      b.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(arg).append("\r\n");
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static Object read(InputStream in) throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new IOException("connection closed before the reply");
    }
    String line = line(in);
    return switch (type) {
      case '+' -> line;
      case '-' -> new Error(line);
      case ':' -> Long.parseLong(line);
      case '$' -> {
        int n = Integer.parseInt(line);
        if (n < 0) {
          yield null;
        }
        byte[] bytes = in.readNBytes(n + 2);
        yield new String(bytes, 0, n, StandardCharsets.UTF_8);
      }
      case '*' -> {
        int n = Integer.parseInt(line);
        List<Object> items = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          items.add(read(in));
        }
        yield n < 0 ? null : items;
      }
      default -> throw new IOException("not a RESP reply: '" + (char) type + line + "'");
    };
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new IOException("connection closed inside a reply");
      }
      if (c != '\r') {
        b.write(c);
      }
    }
    return b.toString(StandardCharsets.UTF_8);
  }

  /** An error reply, kept apart from a string. */
  private record Error(String message) {}
}

package dev.dlock.testkit;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for the servers a test starts, which bind them after this returns.
 *
 * <p>Why not the port of a {@code new ServerSocket(0)}, closed again: the system takes that port
 * from its ephemeral range, the range every outgoing connection takes its local port from, so a
 * connection that any test opens before the server binds may take it, and the server fails with
 * "Address already in use" (it happened in CI, with test classes and modules running side by side).
 * These ports come from below that range, where only servers bind: a random one, free when asked,
 * and never handed out twice by this JVM.
 */
public final class FreePorts {
  /** The lowest port handed out. */
  static final int LOW = 20_000;
  private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();
  private static final int HIGH = ephemeralLow();

  private FreePorts() {}

  /**
   * A port that nothing listens on, on any address, and that this JVM has not handed out before.
   *
   * @return a port from {@value #LOW} up to the start of the system's ephemeral range
   * @throws IllegalStateException if no such port was found in 1,000 tries
   */
  public static int next() {
    return next(LOW, HIGH);
  }

  /**
   * A port {@code p} as {@link #next()} gives, where {@code p + offset} is free and below the
   * ephemeral range too, for a server that binds both: a Redis Cluster node binds its bus port
   * 10,000 above its own. Neither is handed out again.
   *
   * @param offset how far above the port its partner is; from 1 up to 10,000
   * @throws IllegalArgumentException if {@code offset} is out of that range
   * @throws IllegalStateException if no such pair was found in 1,000 tries
   */
  public static int nextWithPartner(int offset) {
    if (offset < 1 || offset > 10_000) {
      throw new IllegalArgumentException("offset must be from 1 up to 10000, but was " + offset);
    }
    return next(LOW, HIGH - offset, offset);
  }

  /** {@link #next()} from {@code low} up to {@code high}, exclusive. */
  static int next(int low, int high) {
    return next(low, high, 0);
  }

  /** A port from {@code low} up to {@code high}, exclusive, free with its partner, if any. */
  private static int next(int low, int high, int offset) {
    String pair = offset == 0 ? "" : " with a free port " + offset + " above it";
    if (high <= low) {
      throw new IllegalStateException("no free port" + pair + " can lie from " + low + " up to " + high);
    }
    for (int tries = 0; tries < 1_000; tries++) {
      int port = ThreadLocalRandom.current().nextInt(low, high);
      // A port found taken by another process's server stays marked, so it is not asked again.
      if (GIVEN.add(port) && (offset == 0 || GIVEN.add(port + offset))
          && bindable(port) && (offset == 0 || bindable(port + offset))) {
        return port;
      }
    }
    throw new IllegalStateException("no free port" + pair + " from " + low + " up to " + high + " in 1,000 tries");
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket(port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The first port of Linux's ephemeral range, or 32768, the Linux default and below every other
   * system's range, where it cannot be read. A range that starts below {@value #LOW} leaves servers
   * no port of their own; 32768 then is no worse than the system's own choice.
   */
  private static int ephemeralLow() {
    try {
      // Not Files.readString: on this kernel file, which reports a size of 0, it returns one byte.
      String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
      int low = Integer.parseInt(range.split("\\s+")[0]);
      return low > LOW + 1_000 ? low : 32_768;
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }
}

package dev.dlock.redis;

import dev.dlock.testkit.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.stream.IntStream;
import redis.embedded.Redis;

/**
 * Starts an embedded-redis topology (a Sentinel group, a Redis Cluster) on ports of {@link
 * FreePorts}, never on embedded-redis's {@code ephemeral()} ones: those come from the range every
 * outgoing connection takes its local port from, and a Sentinel group lost one to another test's
 * client in CI ("the Sentinel topology did not start"). Ports below that range may still be taken
 * by a server of a test in another JVM, picked at random too, so it tries three times, with new
 * ports each time, and stops whatever a failed try had started.
 */
final class Topologies {
  /** Builds a topology, drawing new ports each time it is called. */
  interface Build<R extends Redis> {
    R build() throws IOException;
  }

  private static final int TRIES = 3;

  private Topologies() {}

  /** {@code count} ports, each from {@code port}. */
  static List<Integer> ports(int count, IntSupplier port) {
    return IntStream.range(0, count).map(i -> port.getAsInt()).boxed().toList();
  }

  /**
   * Builds and starts {@code build}'s topology, up to three times.
   *
   * @param what the topology, for the error: "the Sentinel topology"
   * @throws UncheckedIOException if the third try failed too, with the last failure as its cause
   */
  static <R extends Redis> R start(String what, Build<R> build) {
    IOException last = null;
    for (int attempt = 1; attempt <= TRIES; attempt++) {
      R topology = null;
      try {
        topology = build.build();
        topology.start();
        return topology;
      } catch (IOException e) {
        if (last != null) {
          e.addSuppressed(last);
        }
        last = e;
        try {
          if (topology != null) {
            topology.stop(); // the servers that did start must not outlive the try
          }
        } catch (IOException | RuntimeException stopping) {
          e.addSuppressed(stopping);
        }
      }
    }
    throw new UncheckedIOException(what + " did not start in " + TRIES + " tries", last);
  }
}

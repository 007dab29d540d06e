package dev.dlock.lab;

import dev.dlock.testkit.FaultProxy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Each worker's own network path to each node of a server: one {@link FaultProxy} per worker and
 * node, so one worker can be cut off from some nodes while the others still reach them all, as in
 * a partition. A cut path freezes: the holder's bytes and new connections hang, nothing is reset,
 * as on a link that went silent.
 *
 * <p>Why proxies and not network namespaces: they need no privileges, touch only loopback, and the
 * coordinator can tell from them which node a worker talks to ({@link #node}).
 */
final class Links implements AutoCloseable {
  private static final Pattern NODE = Pattern.compile("127\\.0\\.0\\.1:(\\d+)");

  private final String url;
  private final List<Integer> ports;
  private final List<List<FaultProxy>> byWorker;

  private Links(String url, List<Integer> ports, List<List<FaultProxy>> byWorker) {
    this.url = url;
    this.ports = ports;
    this.byWorker = byWorker;
  }

  /**
   * Opens a path per worker to every node {@code ports} of {@code url}.
   *
   * @param url     the server's lock URL; every {@code 127.0.0.1:<port>} in it must be one of {@code ports}
   * @param ports   the client ports of the server's nodes, as {@link LabServer#ports()}
   * @param workers how many workers, numbered from 1
   */
  static Links open(String url, List<Integer> ports, int workers) throws IOException {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be at least 1, was " + workers);
    }
    Matcher m = NODE.matcher(url);
    while (m.find()) {
      if (!ports.contains(Integer.parseInt(m.group(1)))) {
        throw new IllegalArgumentException("url names port " + m.group(1) + ", which is not one of the nodes " + ports);
      }
    }
    List<List<FaultProxy>> byWorker = new ArrayList<>();
    Links links = new Links(url, List.copyOf(ports), byWorker);
    try {
      for (int w = 0; w < workers; w++) {
        List<FaultProxy> paths = new ArrayList<>();
        byWorker.add(paths);
        for (int port : ports) {
          paths.add(FaultProxy.start(new InetSocketAddress("127.0.0.1", port)));
        }
      }
    } catch (IOException | RuntimeException e) {
      links.close();
      throw e;
    }
    return links;
  }

  /** The URL worker {@code worker} (from 1) connects with: every node through its own paths. */
  String url(int worker) {
    List<FaultProxy> paths = paths(worker);
    Matcher m = NODE.matcher(url);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      int node = ports.indexOf(Integer.parseInt(m.group(1)));
      m.appendReplacement(out, "127.0.0.1:" + paths.get(node).port());
    }
    m.appendTail(out);
    return out.toString();
  }

  /** Freezes worker {@code worker}'s paths to the nodes {@code nodes} (indexes into the ports). */
  void cut(int worker, Collection<Integer> nodes) {
    List<FaultProxy> paths = paths(worker);
    for (int n : nodes) {
      if (n < 0 || n >= paths.size()) {
        throw new IllegalArgumentException("node must be 0.." + (paths.size() - 1) + ", was " + n);
      }
      paths.get(n).freeze();
    }
  }

  /** Lets every path through again, with whatever it held. */
  void heal() {
    byWorker.forEach(paths -> paths.forEach(FaultProxy::thaw));
  }

  /** The node worker {@code worker} has a connection open to, the first if several; empty if none. */
  OptionalInt node(int worker) {
    List<FaultProxy> paths = paths(worker);
    for (int n = 0; n < paths.size(); n++) {
      if (paths.get(n).connections() > 0) {
        return OptionalInt.of(n);
      }
    }
    return OptionalInt.empty();
  }

  /** How many nodes there are. */
  int nodes() {
    return ports.size();
  }

  private List<FaultProxy> paths(int worker) {
    if (worker < 1 || worker > byWorker.size()) {
      throw new IllegalArgumentException("worker must be 1.." + byWorker.size() + ", was " + worker);
    }
    return byWorker.get(worker - 1);
  }

  @Override
  public void close() {
    byWorker.forEach(paths -> paths.forEach(FaultProxy::close));
  }

  @Override
  public String toString() {
    return "Links" + Map.of("url", url, "workers", byWorker.size());
  }
}

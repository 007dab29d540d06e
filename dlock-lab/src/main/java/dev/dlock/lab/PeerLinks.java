package dev.dlock.lab;

import dev.dlock.testkit.FaultProxy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The network between the members of an ensemble: for each directed pair of members (from, to)
 * one {@link FaultProxy} in front of the quorum port of {@code to} and one in front of its
 * election port. Member {@code from} is told, in its own {@code zoo.cfg}, that its peer lives at
 * the proxies' ports, so every connection it opens to a peer goes through a path of its own, and
 * {@link #isolate} can make every path to and from one member go silent.
 *
 * <p>Why a member names itself {@code 0.0.0.0} ({@link #serverLine}): a member that accepts an
 * election connection from a peer of a lower id drops it and connects back, to the address the
 * peer sent about itself, which is the peer's own entry in its own config. A wildcard address is
 * not sent on, and the member then connects back through its own config, so through the proxy.
 * The cost: the members' quorum and election ports listen on every interface, not only loopback.
 */
final class PeerLinks implements AutoCloseable {
  private final int size;
  private final int[] quorumPorts;
  private final int[] electionPorts;
  private final List<FaultProxy> all = new ArrayList<>();
  /** [from][to] proxies, {@code null} where from == to. */
  private final FaultProxy[][] quorum;
  private final FaultProxy[][] election;

  private PeerLinks(int size) {
    this.size = size;
    this.quorumPorts = new int[size];
    this.electionPorts = new int[size];
    this.quorum = new FaultProxy[size][size];
    this.election = new FaultProxy[size][size];
  }

  /**
   * Picks a free quorum and election port for each of {@code size} members and starts the
   * proxies in front of them. The ports stay bound until every proxy has its own, so that no proxy
   * takes a member's port; a member that starts later may still find its port taken by another
   * process, and then fails to start.
   *
   * @param quorumPatience how long a path to a quorum port keeps trying a member that refuses: a
   *                       leader opens its quorum port only once elected, and its followers, which
   *                       retry a refused connect, must not see the proxy's accepted-then-closed
   *                       connection as a leader that failed
   */
  static PeerLinks open(int size, Duration quorumPatience) throws IOException {
    if (size < 2) {
      throw new IllegalArgumentException("an ensemble needs at least 2 members, was " + size);
    }
    PeerLinks links = new PeerLinks(size);
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int n = 0; n < size; n++) {
        links.quorumPorts[n] = hold(held);
        links.electionPorts[n] = hold(held);
      }
      for (int from = 0; from < size; from++) {
        for (int to = 0; to < size; to++) {
          if (from != to) {
            links.quorum[from][to] = links.proxy(links.quorumPorts[to], quorumPatience);
            links.election[from][to] = links.proxy(links.electionPorts[to], Duration.ZERO);
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      links.close();
      throw e;
    } finally {
      for (ServerSocket s : held) {
        s.close();
      }
    }
    return links;
  }

  /** A port free on every interface, as a member binds it, kept bound in {@code held}. */
  private static int hold(List<ServerSocket> held) throws IOException {
    ServerSocket s = new ServerSocket(0);
    held.add(s);
    return s.getLocalPort();
  }

  private FaultProxy proxy(int port, Duration patience) throws IOException {
    FaultProxy p = FaultProxy.start(new InetSocketAddress("127.0.0.1", port), patience);
    all.add(p);
    return p;
  }

  /**
   * The {@code server.<id>=} line of member {@code to} in the config of member {@code from}
   * (ids are indexes plus one): its own ports on {@code 0.0.0.0} for itself, the proxies of the
   * pair for a peer.
   */
  String serverLine(int from, int to) {
    check(from);
    check(to);
    String address = from == to ? "0.0.0.0:" + quorumPorts[to] + ":" + electionPorts[to]
        : "127.0.0.1:" + quorum[from][to].port() + ":" + election[from][to].port();
    return "server." + (to + 1) + "=" + address;
  }

  /** Freezes every path to and from member {@code node}: its peers and it stop hearing each other. */
  void isolate(int node) {
    check(node);
    for (int other = 0; other < size; other++) {
      if (other != node) {
        quorum[node][other].freeze();
        election[node][other].freeze();
        quorum[other][node].freeze();
        election[other][node].freeze();
      }
    }
  }

  /** Lets every path through again, with whatever it held. */
  void heal() {
    all.forEach(FaultProxy::thaw);
  }

  /** The connections open from member {@code from} to member {@code to}, quorum and election. */
  int connections(int from, int to) {
    check(from);
    check(to);
    return from == to ? 0 : quorum[from][to].connections() + election[from][to].connections();
  }

  private void check(int node) {
    if (node < 0 || node >= size) {
      throw new IllegalArgumentException("member must be 0.." + (size - 1) + ", was " + node);
    }
  }

  @Override
  public void close() {
    all.forEach(FaultProxy::close);
  }
}

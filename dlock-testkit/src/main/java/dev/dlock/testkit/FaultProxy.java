package dev.dlock.testkit;

import dev.dlock.spi.Ticker;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on loopback between clients and one server, for fault tests. It forwards bytes both
 * ways until {@link #freeze() frozen}; frozen, it holds every byte and every new connection, and
 * the connections stay open, as on a network path that went silent: nothing is refused or reset,
 * a client only stops hearing back. {@link #thaw()} lets everything through again;
 * {@link #cut()} closes every connection, as a dropped path that resets does.
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", serverPort))) {
 *   LockClient c = LockClient.connect("redis://127.0.0.1:" + proxy.port());
 *   proxy.freeze();
 * }
 * }</pre>
 *
 * <p>Each connection costs two daemon threads. Thread-safe.
 */
public final class FaultProxy implements AutoCloseable {
  private static final int CHUNK = 16 * 1024;

  private static final long RETRY_MILLIS = 20;

  private final InetSocketAddress target;
  private final long connectPatienceNanos;
  private final ServerSocket listener;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Object gate = new Object();
  private final AtomicInteger connections = new AtomicInteger();
  private volatile boolean frozen;
  private volatile boolean closed;

  private FaultProxy(InetSocketAddress target, Duration connectPatience) throws IOException {
    this.target = target;
    this.connectPatienceNanos = connectPatience.toNanos();
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    daemon("fault-proxy-accept-" + listener.getLocalPort(), this::acceptLoop).start();
  }

  /**
   * Starts a proxy on a free loopback port that forwards to {@code target}.
   *
   * @param target the server, on loopback
   * @return the running proxy
   * @throws IOException if no port could be bound
   */
  public static FaultProxy start(InetSocketAddress target) throws IOException {
    return start(target, Duration.ZERO);
  }

  /**
   * As {@link #start(InetSocketAddress)}, but a connection the target refuses is tried again every
   * {@value #RETRY_MILLIS} ms for up to {@code connectPatience}, the client's bytes held meanwhile;
   * only then is the client's connection closed. Why: the proxy accepts a client before it reaches
   * the target, so a refusal reaches the client as a connection that opened and then closed, which
   * a client that retries refused connects (a ZooKeeper follower, whose leader opens its port a
   * moment after the election) takes for a failure of the peer. Retrying here stands in for the
   * client's own retries.
   *
   * @param target          the server, on loopback
   * @param connectPatience how long to keep trying a target that refuses; zero tries once
   * @return the running proxy
   * @throws IOException if no port could be bound
   */
  public static FaultProxy start(InetSocketAddress target, Duration connectPatience) throws IOException {
    if (!target.getAddress().isLoopbackAddress()) {
      throw new IllegalArgumentException("a fault proxy only forwards to loopback, not to " + target);
    }
    if (connectPatience == null || connectPatience.isNegative()) {
      throw new IllegalArgumentException("connectPatience must be zero or positive, was " + connectPatience);
    }
    return new FaultProxy(target, connectPatience);
  }

  /** @return the loopback port clients connect to */
  public int port() {
    return listener.getLocalPort();
  }

  /**
   * @return the connections forwarded to the target right now: accepted, connected through, and
   *         not yet closed by either side. One held back while frozen is not counted until it connects.
   */
  public int connections() {
    return connections.get();
  }

  /** Stops forwarding: bytes in flight and new connections wait until {@link #thaw()}. */
  public void freeze() {
    synchronized (gate) {
      frozen = true;
    }
  }

  /** Forwards again, starting with whatever was held. */
  public void thaw() {
    synchronized (gate) {
      frozen = false;
      gate.notifyAll();
    }
  }

  /** Closes every open connection, both sides; new ones are still accepted. */
  public void cut() {
    for (Socket s : sockets) {
      closeQuietly(s);
    }
    sockets.clear();
  }

  /** Stops listening and closes every connection. Idempotent. */
  @Override
  public void close() {
    closed = true;
    thaw();
    closeQuietly(listener);
    cut();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      sockets.add(client);
      daemon("fault-proxy-connect-" + port(), () -> connect(client)).start();
    }
  }

  private void connect(Socket client) {
    Socket server;
    try {
      awaitThawed();
      server = connectTarget();
      client.setTcpNoDelay(true);
      server.setTcpNoDelay(true);
    } catch (IOException | InterruptedException e) {
      closeQuietly(client);
      sockets.remove(client);
      return;
    }
    connections.incrementAndGet();
    try {
      daemon("fault-proxy-up-" + port(), () -> pump(client, server)).start();
      pump(server, client);
    } finally {
      connections.decrementAndGet();
    }
  }

  /** A connection to the target, tried again while it refuses and the patience lasts. */
  private Socket connectTarget() throws IOException, InterruptedException {
    long deadline = Ticker.system().read() + connectPatienceNanos;
    while (true) {
      Socket server = new Socket();
      sockets.add(server);
      try {
        server.connect(target);
        return server;
      } catch (IOException e) {
        closeQuietly(server);
        sockets.remove(server);
        if (closed || Ticker.system().read() - deadline >= 0) {
          throw e;
        }
      }
      Thread.sleep(RETRY_MILLIS);
      awaitThawed();
    }
  }

  /** Copies one direction; a chunk read while frozen waits at the gate, so the sender's buffers fill. */
  private void pump(Socket from, Socket to) {
    byte[] chunk = new byte[CHUNK];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(chunk)) >= 0) {
        awaitThawed();
        out.write(chunk, 0, n);
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // A closed or cut connection: end both sides below.
    } finally {
      closeQuietly(from);
      closeQuietly(to);
      sockets.remove(from);
      sockets.remove(to);
    }
  }

  private void awaitThawed() throws InterruptedException {
    synchronized (gate) {
      while (frozen && !closed) {
        gate.wait();
      }
    }
  }

  private static Thread daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    return t;
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // Closing a broken socket can fail; it is closed either way.
    }
  }

  @Override
  public String toString() {
    return "FaultProxy[127.0.0.1:" + port() + " -> " + target + (frozen ? ", frozen" : "") + "]";
  }
}

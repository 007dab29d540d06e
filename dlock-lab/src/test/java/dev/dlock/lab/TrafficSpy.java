package dev.dlock.lab;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A loopback TCP relay that notes when a client's requests and the server's answers pass, so that
 * a test can time a fault to the moment right after a request was answered. Why not the testkit's
 * FaultProxy: it says nothing of when bytes pass.
 */
final class TrafficSpy implements AutoCloseable {
  /** A ZooKeeper ping is 12 bytes: a request bigger than that is a real call. */
  private static final int PING_BYTES = 12;

  private final ServerSocket listener;
  private final int target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final AtomicLong lastRequest = new AtomicLong();
  private final AtomicLong lastAnswer = new AtomicLong();

  private TrafficSpy(int target) throws IOException {
    this.target = target;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
  }

  /** Relays a free loopback port to 127.0.0.1:{@code target}. */
  static TrafficSpy start(int target) throws IOException {
    TrafficSpy spy = new TrafficSpy(target);
    daemon(spy::accept);
    return spy;
  }

  int port() {
    return listener.getLocalPort();
  }

  /**
   * Waits for a request sent 100 ms or more from now (what a client sends right away, such as the
   * watch after a grant, is let pass) and for the first answer after it.
   */
  void awaitAnsweredRequest(Duration patience) {
    long from = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
    long deadline = System.nanoTime() + patience.toNanos();
    while (lastRequest.get() - from < 0 || lastAnswer.get() - lastRequest.get() <= 0) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("no request answered through the spy within " + patience);
      }
      LockSupport.parkNanos(20_000);
    }
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
        sockets.add(client);
        sockets.add(server);
        daemon(() -> pump(client, server, lastRequest, PING_BYTES + 1));
        daemon(() -> pump(server, client, lastAnswer, 1));
      } catch (IOException e) {
        return; // closed, or the target refused: the client sees its connection close
      }
    }
  }

  /** Copies one way and notes, in {@code seen}, when a chunk of {@code min} bytes or more passed. */
  private static void pump(Socket from, Socket to, AtomicLong seen, int min) {
    byte[] chunk = new byte[65536];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      for (int n = in.read(chunk); n >= 0; n = in.read(chunk)) {
        out.write(chunk, 0, n);
        out.flush();
        if (n >= min) {
          seen.set(System.nanoTime());
        }
      }
    } catch (IOException e) {
      // closed on either side
    } finally {
      close(from);
      close(to);
    }
  }

  private static void daemon(Runnable body) {
    Thread t = new Thread(body, "traffic-spy");
    t.setDaemon(true);
    t.start();
  }

  private static void close(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // closing a broken socket can fail; it is closed either way
    }
  }

  @Override
  public void close() {
    close(listener);
    sockets.forEach(TrafficSpy::close);
  }
}

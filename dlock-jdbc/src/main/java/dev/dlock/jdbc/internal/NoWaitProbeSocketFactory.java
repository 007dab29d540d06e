package dev.dlock.jdbc.internal;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.SocketFactory;
import org.jspecify.annotations.Nullable;

/**
 * Not API. The sockets of dlock's PostgreSQL LISTEN connection, named to the PostgreSQL driver by
 * its {@code socketFactory} property. Why: after every notification the driver looks for a further
 * message by reading with a 1 ms socket timeout, and on that path it never throttles the look, so
 * each notification reaches the application a millisecond late: most of a wake-up's latency on a
 * local server. A socket from here answers such a look at once, as a timeout, when the kernel holds
 * no byte for it, which is what the driver's look means ("without blocking"). Only on a plaintext
 * session: under TLS or GSS encryption a look could cut into a half-read record, so the shortcut
 * stays off unless the session's first message is a plain startup message, after any encryption
 * request the server refused. (Seen in pgjdbc 42.7.14's {@code PGStream.hasMessagePending}; once
 * the driver throttles or skips that read, this class has nothing left to do.)
 */
public final class NoWaitProbeSocketFactory extends SocketFactory {
  /** The socket timeout, in milliseconds, that marks the driver's look for a pending message. */
  static final int PROBE_MILLIS = 1;
  private static final int SSL_REQUEST = 80877103;
  private static final int GSS_REQUEST = 80877104;
  private static final AtomicLong SHORTCUTS = new AtomicLong();

  /** For the driver, which instantiates the factory by name. */
  public NoWaitProbeSocketFactory() {}

  /** How many looks were answered at once, over all sockets: for tests. */
  static long shortcuts() {
    return SHORTCUTS.get();
  }

  /** How many looks were answered at once on one socket of this factory: for tests. */
  static long shortcuts(Socket socket) {
    return ((ProbeSocket) socket).shortcuts.get();
  }

  @Override
  public Socket createSocket() {
    return new ProbeSocket();
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    return createSocket(InetAddress.getByName(host), port);
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
    return createSocket(InetAddress.getByName(host), port, localHost, localPort);
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    return connected(new InetSocketAddress(host, port), null);
  }

  @Override
  public Socket createSocket(InetAddress host, int port, InetAddress localHost, int localPort) throws IOException {
    return connected(new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
  }

  private static Socket connected(InetSocketAddress remote, @Nullable InetSocketAddress local)
      throws IOException {
    Socket s = new ProbeSocket();
    try {
      if (local != null) {
        s.bind(local);
      }
      s.connect(remote);
      return s;
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
  }

  /** Where the session is in the protocol's opening, which decides whether looks may be cut short. */
  private enum Opening { START, ASKED_ENCRYPTION, PLAIN, OFF }

  private static final class ProbeSocket extends Socket {
    private final AtomicLong shortcuts = new AtomicLong();
    private volatile int timeout;
    private volatile Opening opening = Opening.START;
    private @Nullable InputStream in;
    private @Nullable OutputStream out;

    @Override
    public synchronized void setSoTimeout(int timeout) throws SocketException {
      super.setSoTimeout(timeout);
      this.timeout = timeout;
    }

    @Override
    public synchronized InputStream getInputStream() throws IOException {
      if (in == null) {
        InputStream raw = super.getInputStream();
        in = new FilterInputStream(raw) {
          @Override
          public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
          }

          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            if (opening == Opening.PLAIN && timeout == PROBE_MILLIS && len > 0 && raw.available() == 0) {
              SHORTCUTS.incrementAndGet();
              shortcuts.incrementAndGet();
              throw new SocketTimeoutException("no message pending");
            }
            int n = raw.read(b, off, len);
            if (n > 0 && opening == Opening.ASKED_ENCRYPTION) {
              // 'N': the server refused encryption and the session goes on in plaintext.
              opening = b[off] == 'N' ? Opening.START : Opening.OFF;
            }
            return n;
          }
        };
      }
      return in;
    }

    @Override
    public synchronized OutputStream getOutputStream() throws IOException {
      if (out == null) {
        out = new FilterOutputStream(super.getOutputStream()) {
          @Override
          public void write(int b) throws IOException {
            if (opening == Opening.START) {
              opening = Opening.OFF; // a message in pieces: not worth reading, so stay safe
            }
            out.write(b);
          }

          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            if (opening == Opening.START) {
              opening = opened(b, off, len);
            }
            out.write(b, off, len);
          }
        };
      }
      return out;
    }

    /** The state after the session's first message, or after a refused encryption request. */
    private static Opening opened(byte[] b, int off, int len) {
      if (len < 8) {
        return Opening.OFF;
      }
      int code = ByteBuffer.wrap(b, off + 4, 4).getInt();
      if (len == 8 && (code == SSL_REQUEST || code == GSS_REQUEST)) {
        return Opening.ASKED_ENCRYPTION;
      }
      return code >>> 16 == 3 && b[off] == 0 ? Opening.PLAIN : Opening.OFF;
    }
  }
}

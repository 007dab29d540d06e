package dev.dlock.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.DataInputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

class NoWaitProbeSocketFactoryTest {
  private static EmbeddedPostgres pg;

  @BeforeAll
  static void startServer() throws Exception {
    pg = EmbeddedPostgres.builder().start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    pg.close();
  }

  /** prefer: the driver asks for TLS, the embedded server refuses, and the session is plaintext. */
  @ParameterizedTest
  @ValueSource(strings = {"disable", "prefer"})
  void aNotificationIsReadWithTheDriversLookForMoreAnsweredAtOnce(String sslmode) throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres?user=postgres&sslmode=" + sslmode;
    Properties props = new Properties();
    props.setProperty("socketFactory", NoWaitProbeSocketFactory.class.getName());
    try (Connection listener = DriverManager.getConnection(url, props);
        Connection sender = DriverManager.getConnection(url);
        Statement listen = listener.createStatement();
        Statement send = sender.createStatement()) {
      listen.execute("LISTEN probe_test");
      long before = NoWaitProbeSocketFactory.shortcuts();
      send.execute("NOTIFY probe_test, 'hello'");

      PGNotification[] got = listener.unwrap(PGConnection.class).getNotifications(10_000);

      assertThat(got).extracting(PGNotification::getParameter).containsExactly("hello");
      assertThat(NoWaitProbeSocketFactory.shortcuts()).isGreaterThan(before);
      try (ResultSet rs = listen.executeQuery("SELECT 41 + 1")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(42); // the session is intact after the shortcut
      }
    }
  }

  @Test
  void aPlaintextSessionAnswersALookAtOnce() throws Exception {
    try (Session s = Session.open()) {
      s.clientSends(3 << 16); // a startup message, protocol 3.0
      s.client.setSoTimeout(NoWaitProbeSocketFactory.PROBE_MILLIS);

      assertThatThrownBy(s::clientReads).isInstanceOf(SocketTimeoutException.class);
      assertThat(NoWaitProbeSocketFactory.shortcuts(s.client)).isEqualTo(1);

      s.peer.getOutputStream().write('Z');
      s.client.setSoTimeout(10_000);
      assertThat(s.clientReads()).isEqualTo('Z'); // longer timeouts read as usual
    }
  }

  @Test
  void aSessionTheServerEncryptsNeverTakesTheShortcut() throws Exception {
    try (Session s = Session.open()) {
      s.clientSends(80877103); // SSLRequest
      s.peer.getOutputStream().write('S');
      assertThat(s.clientReads()).isEqualTo('S');
      s.clientSends(3 << 16); // what TLS would carry; not plaintext any more
      s.client.setSoTimeout(NoWaitProbeSocketFactory.PROBE_MILLIS);

      assertThatThrownBy(s::clientReads).isInstanceOf(SocketTimeoutException.class); // after 1 ms
      assertThat(NoWaitProbeSocketFactory.shortcuts(s.client)).isZero();
    }
  }

  @Test
  void anEncryptionRequestTheServerRefusesLeavesThePlaintextSessionItsShortcut() throws Exception {
    try (Session s = Session.open()) {
      s.clientSends(80877104); // GSSENCRequest
      s.peer.getOutputStream().write('N');
      assertThat(s.clientReads()).isEqualTo('N');
      s.clientSends(3 << 16);
      s.client.setSoTimeout(NoWaitProbeSocketFactory.PROBE_MILLIS);

      assertThatThrownBy(s::clientReads).isInstanceOf(SocketTimeoutException.class);
      assertThat(NoWaitProbeSocketFactory.shortcuts(s.client)).isEqualTo(1);
    }
  }

  /** A socket of the factory connected to a plain peer on loopback, standing in for a server. */
  private record Session(ServerSocket server, Socket client, Socket peer) implements AutoCloseable {
    static Session open() throws Exception {
      ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
      Socket client = new NoWaitProbeSocketFactory().createSocket(InetAddress.getLoopbackAddress(), server.getLocalPort());
      return new Session(server, client, server.accept());
    }

    /** Sends an 8-byte protocol message (its length, then the code or protocol version), read by the peer. */
    void clientSends(int code) throws Exception {
      client.getOutputStream().write(ByteBuffer.allocate(8).putInt(8).putInt(code).array());
      new DataInputStream(peer.getInputStream()).readFully(new byte[8]);
    }

    int clientReads() throws Exception {
      return client.getInputStream().read();
    }

    @Override
    public void close() throws Exception {
      try (server; client; peer) {
        // closes all three
      }
    }
  }
}

package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.BackendUnavailableException;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** AUTH with a password, an ACL user, and TLS, each through the URL, on real redis-servers. */
class RedisSecurityTest {

  private static void lockOnce(String url) throws InterruptedException {
    try (LockClient c = LockClient.builder().url(url).build();
        Lease lease = c.lock("secure").acquire(Duration.ofSeconds(5))) {
      assertThat(lease.token()).isPositive();
    }
  }

  @Test
  void aPasswordAndAnAclUserAuthenticateAndAWrongPasswordFailsWithoutShowingIt() throws Exception {
    try (RedisTestServer server = RedisTestServer.withPassword("s3cret", "requirepass s3cret",
        "user alice on >wonderland ~* &* +@all")) {
      String hostPort = "127.0.0.1:" + server.port();
      lockOnce("redis://:s3cret@" + hostPort);
      lockOnce("redis://alice:wonderland@" + hostPort);
      assertThatThrownBy(() -> lockOnce("redis://alice:wrong-pass@" + hostPort))
          .isInstanceOf(BackendUnavailableException.class)
          .hasMessageContaining("redis://alice:***@" + hostPort)
          .hasMessageContaining("WRONGPASS")
          .hasMessageNotContaining("wrong-pass");
      assertThatThrownBy(() -> lockOnce("redis://" + hostPort))
          .isInstanceOf(BackendUnavailableException.class)
          .hasMessageContaining("NOAUTH");
    }
  }

  @Test
  void redissConnectsOverTlsAndVerifiesTheServerCertificate() throws Exception {
    TlsFiles tls = TlsFiles.selfSigned();
    Path dir = tls.cert().getParent();
    Path cert = tls.cert();
    int tlsPort = RedisTestServer.freePort();
    try (RedisTestServer server = RedisTestServer.start(tls.serverSettings(tlsPort))) {
      String url = "rediss://127.0.0.1:" + tlsPort;
      // Without trusting the server's certificate, the handshake is refused.
      assertThatThrownBy(() -> lockOnce(url)).isInstanceOf(BackendUnavailableException.class)
          .hasMessageContaining(url);
      // A plain connection to the TLS port gets no answer it understands.
      assertThatThrownBy(() -> lockOnce("redis://127.0.0.1:" + tlsPort + "?timeout=2s"))
          .isInstanceOf(BackendUnavailableException.class);
      Path trustStore = dir.resolve("trust.p12");
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      try (InputStream in = new FileInputStream(cert.toFile())) {
        ks.setCertificateEntry("redis", CertificateFactory.getInstance("X.509").generateCertificate(in));
      }
      try (OutputStream out = new FileOutputStream(trustStore.toFile())) {
        ks.store(out, "changeit".toCharArray());
      }
      String oldStore = System.getProperty("javax.net.ssl.trustStore");
      String oldPass = System.getProperty("javax.net.ssl.trustStorePassword");
      System.setProperty("javax.net.ssl.trustStore", trustStore.toString());
      System.setProperty("javax.net.ssl.trustStorePassword", "changeit");
      try {
        lockOnce(url);
      } finally {
        restore("javax.net.ssl.trustStore", oldStore);
        restore("javax.net.ssl.trustStorePassword", oldPass);
      }
    }
  }

  private static void restore(String key, String value) {
    if (value == null) {
      System.clearProperty(key);
    } else {
      System.setProperty(key, value);
    }
  }
}

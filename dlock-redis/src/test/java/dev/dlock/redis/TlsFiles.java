package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1 and its key, made by openssl under the test temp
 * folder, and the settings of a redis-server TLS port that uses them.
 *
 * @param cert the certificate, PEM
 * @param key  its private key, PEM
 */
record TlsFiles(Path cert, Path key) {

  static TlsFiles selfSigned() throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "redis-tls");
    TlsFiles files = new TlsFiles(dir.resolve("cert.pem"), dir.resolve("key.pem"));
    Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
        "-keyout", files.key.toString(), "-out", files.cert.toString(), "-days", "1", "-subj", "/CN=127.0.0.1",
        "-addext", "subjectAltName=IP:127.0.0.1").redirectErrorStream(true).start();
    p.getInputStream().transferTo(OutputStream.nullOutputStream());
    assertThat(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0).as("openssl made a certificate").isTrue();
    return files;
  }

  /** redis-server settings for a TLS port on {@code tlsPort} that asks clients for no certificate. */
  String[] serverSettings(int tlsPort) {
    return new String[] {"tls-port " + tlsPort, "tls-cert-file " + cert, "tls-key-file " + key,
        "tls-ca-cert-file " + cert, "tls-auth-clients no"};
  }
}

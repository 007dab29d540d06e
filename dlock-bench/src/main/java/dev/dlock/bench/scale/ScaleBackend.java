package dev.dlock.bench.scale;

import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockBackendProvider;
import java.util.List;
import java.util.ServiceLoader;

/**
 * One backend of the scale rows: a fresh {@link LockBackend} per client, on the bench's server for
 * that backend, and what the server can tell about it. A count the server cannot give is -1.
 */
interface ScaleBackend extends AutoCloseable {
  /** The backends {@code --backends} knows, the default ones first. */
  List<String> NAMES = List.of("redis", "zookeeper", "pg", "mem");

  /** Its name, as given to {@code --backends}. */
  String name();

  /** A new backend for one client, not yet started. */
  LockBackend open();

  /** The requests the server has received so far from this backend's clients (or all clients), or -1. */
  default long requests() {
    return -1;
  }

  /** The operations the server has run so far, where they differ from requests (Redis scripts), or -1. */
  default long serverOps() {
    return -1;
  }

  /** Microseconds the server has spent running this backend's requests so far (Redis scripts), or -1. */
  default long serverMicros() {
    return -1;
  }

  /** What the server stores for the locks now (keys, rows or nodes), or -1. */
  default long stored() {
    return -1;
  }

  /** The unit of {@link #stored}: "keys", "rows" or "nodes". */
  default String storedUnit() {
    return "-";
  }

  /** One line for the legend: the server, and how requests and storage are counted. */
  String legend();

  @Override
  default void close() {}

  /**
   * The backend called {@code name}, on its server, started if need be.
   *
   * @throws IllegalArgumentException naming the known backends if it is none of them
   */
  static ScaleBackend create(String name) {
    return switch (name) {
      case "redis" -> new RedisScale();
      case "zookeeper" -> new ZkScale();
      case "pg" -> new PgScale();
      case "mem" -> new MemScale();
      default -> throw new IllegalArgumentException("unknown backend '" + name + "'; known: " + NAMES);
    };
  }

  /** The backend for a dlock URL, found as LockClient.connect finds it. */
  static LockBackend openUrl(String url) {
    String scheme = url.substring(0, url.indexOf(':'));
    for (LockBackendProvider p : ServiceLoader.load(LockBackendProvider.class)) {
      if (p.schemes().contains(scheme)) {
        return p.open(url);
      }
    }
    throw new IllegalStateException("no dlock backend on the class path handles url " + url);
  }
}

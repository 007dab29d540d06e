/**
 * dlock's Redis backends, {@code redis:} and {@code redlock:}, found by the core through
 * {@code ServiceLoader}; nothing here is API, so nothing is exported. Lettuce and Reactor are
 * automatic modules (named in their manifests).
 */
@SuppressWarnings("requires-automatic")
module dev.dlock.redis {
  requires dev.dlock.core;
  requires lettuce.core;
  requires reactor.core;
  requires org.slf4j;

  provides dev.dlock.spi.LockBackendProvider with
      dev.dlock.redis.RedisBackendProvider, dev.dlock.redis.RedlockBackendProvider;
}

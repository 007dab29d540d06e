/**
 * dlock's core: the API ({@code dev.dlock}), the backend SPI ({@code dev.dlock.spi}) and the
 * in-memory backend behind {@code mem:} URLs. The engine ({@code dev.dlock.engine}) and the mem
 * backend's classes stay hidden; the URL and call-timeout helpers ({@code dev.dlock.internal}) are
 * open only to dlock's own backend modules and its testkit.
 */
// The qualified exports name modules built after this one, which javac cannot see yet.
@SuppressWarnings("module")
module dev.dlock.core {
  requires org.slf4j;
  requires static transitive org.jspecify;

  exports dev.dlock;
  exports dev.dlock.spi;
  exports dev.dlock.internal to
      dev.dlock.redis, dev.dlock.zookeeper, dev.dlock.jdbc, dev.dlock.testkit;
  // MemServer (one in-memory server for many clients, on a ticker a test drives) for the testkit.
  exports dev.dlock.mem to dev.dlock.testkit;

  uses dev.dlock.spi.LockBackendProvider;

  provides dev.dlock.spi.LockBackendProvider with dev.dlock.mem.MemBackendProvider;
}

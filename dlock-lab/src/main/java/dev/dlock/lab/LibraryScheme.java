package dev.dlock.lab;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.LockListener;
import java.time.Duration;
import java.util.Optional;

/**
 * Any dlock lock, through the public API only: {@code LockClient.builder().url(..)}. The client's
 * watchdog lease is the worker's lease, so a holder that stops longer than it loses the lock; an
 * acquire asking for another lease gets a lock of that fixed lease. Why only the public API: the
 * lab must judge the library as its users run it. Wake-ups ({@link LockListener#woken}) call
 * {@code onWake}, so S12's are counted as S11's are.
 */
final class LibraryScheme implements ReadWriteScheme {
  private final LockClient client;
  private final String process;
  private final Duration lease;
  private final boolean readWrite;

  /** {@code readWrite}: the exclusive acquire takes the write lock of the read-write lock (S13). */
  LibraryScheme(String url, String process, Duration lease, boolean readWrite, Runnable onWake) {
    this.process = process;
    this.lease = lease;
    this.readWrite = readWrite;
    this.client = LockClient.builder().url(url).clientName(process).leaseTime(lease)
        .listener(new LockListener() {
          @Override
          public void woken(String name) {
            onWake.run();
          }
        }).build();
  }

  @Override
  public Held acquire(String lock, Duration lease, Duration wait) throws Exception {
    if (readWrite) {
      return acquire(lock, false, lease, wait);
    }
    DistributedLock l = lease.equals(this.lease) ? client.lock(lock) : client.lock(lock, lease);
    return held(l.tryAcquire(wait));
  }

  @Override
  public Held acquire(String lock, boolean shared, Duration lease, Duration wait) throws Exception {
    var rw = client.readWriteLock(lock);
    return held((shared ? rw.readLock() : rw.writeLock()).tryAcquire(wait));
  }

  private Held held(Optional<Lease> got) {
    if (got.isEmpty()) {
      return null;
    }
    Lease l = got.get();
    return new Held() {
      @Override
      public long token() {
        return l.token();
      }

      @Override
      public boolean lost() {
        return !l.isValid() || l.lost().toCompletableFuture().isDone();
      }

      @Override
      public String release() {
        try {
          l.close();
          return process;
        } catch (LeaseLostException e) {
          return "";
        }
      }
    };
  }

  @Override
  public boolean fenced() {
    return true;
  }

  @Override
  public void close() {
    client.close();
  }
}

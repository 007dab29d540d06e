package dev.dlock.zookeeper;

import dev.dlock.spi.Ticker;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The requests of one {@link ZkSession#call} on one ZooKeeper handle, each sent asynchronously and
 * waited for no longer than the call's deadline. Why not ZooKeeper's synchronous methods: they
 * wait until the answer comes or the client gives up the connection (two thirds of the session
 * timeout without a word from the server), whatever the caller's deadline, so a paused server
 * would hold a 2 s acquire for many seconds. A request that runs out of time throws
 * {@code OPERATIONTIMEOUT}; it may still reach the server later, which the recipes allow for as for
 * a lost answer. Waits ignore interrupts, as calls do, and remember them for the caller.
 */
final class Requests {
  private final ZooKeeper zk;
  private final long deadline;
  private final Ticker ticker;
  private boolean interrupted;
  private boolean reachedLeader;

  Requests(ZooKeeper zk, long deadline, Ticker ticker) {
    this.zk = zk;
    this.deadline = deadline;
    this.ticker = ticker;
  }

  long sessionId() {
    return zk.getSessionId();
  }

  /**
   * True once a request was sent that a follower passes to the leader (a sync or a write), so
   * that its answer shows the leader heard from this session's server after it was sent.
   */
  boolean reachedLeader() {
    return reachedLeader;
  }

  /** True if a wait was interrupted (the flag was cleared and is the caller's to restore). */
  boolean interrupted() {
    return interrupted;
  }

  /** A node just created: its path (with the sequence, for a sequential node) and its Stat. */
  record Created(String path, Stat stat) {}

  Created create(String path, byte[] data, List<ACL> acl, CreateMode mode) throws KeeperException {
    reachedLeader = true;
    CompletableFuture<Created> f = new CompletableFuture<>();
    zk.create(path, data, acl, mode, (rc, p, ctx, name, stat) -> settle(f, rc, p, new Created(name, stat)), null);
    return await(f);
  }

  /**
   * A transaction, or a batch of reads. As the synchronous call does, a failed transaction throws
   * the error of its first failed operation; the results of reads come back each with its own.
   * (Unlike the synchronous call's, the exception carries no per-operation results; no caller
   * reads them.)
   */
  List<OpResult> multi(List<Op> ops) throws KeeperException {
    boolean reads = ops.get(0).getKind() == Op.OpKind.READ;
    reachedLeader |= !reads;
    CompletableFuture<List<OpResult>> f = new CompletableFuture<>();
    zk.multi(ops, (rc, path, ctx, results) -> settle(f, reads && results != null ? 0 : rc, path, results), null);
    return await(f);
  }

  List<String> getChildren(String path) throws KeeperException {
    CompletableFuture<List<String>> f = new CompletableFuture<>();
    zk.getChildren(path, (Watcher) null, (rc, p, ctx, children) -> settle(f, rc, p, children), null);
    return await(f);
  }

  /** A node's data and Stat. */
  record Data(byte[] data, Stat stat) {}

  Data getData(String path) throws KeeperException {
    CompletableFuture<Data> f = new CompletableFuture<>();
    zk.getData(path, (Watcher) null, (rc, p, ctx, data, stat) -> settle(f, rc, p, new Data(data, stat)), null);
    return await(f);
  }

  /** The node's Stat, or null if it does not exist; {@code watcher} (may be null) is left on it. */
  @Nullable Stat exists(String path, @Nullable Watcher watcher) throws KeeperException {
    return await(existsLater(path, watcher));
  }

  /** Sends an exists request, to be {@linkplain #await awaited} later, so that several go in one round trip. */
  CompletableFuture<Stat> existsLater(String path, @Nullable Watcher watcher) {
    return existsAsync(zk, path, watcher);
  }

  /**
   * As {@link #existsLater(String, Watcher)}, giving the answer to {@code answered} first, on the
   * event thread ({@link #existsAsync(ZooKeeper, String, Watcher, Answered)}).
   */
  CompletableFuture<Stat> existsLater(String path, Watcher watcher, Answered answered) {
    return existsAsync(zk, path, watcher, answered);
  }

  /** Sends an exists request without waiting: the answer's Stat, null for no node, or its error. */
  static CompletableFuture<Stat> existsAsync(ZooKeeper zk, String path, @Nullable Watcher watcher) {
    return existsAsync(zk, path, watcher, stat -> { });
  }

  /** What to do with an exists answer on ZooKeeper's event thread; {@code stat} is null for no node. */
  @FunctionalInterface
  interface Answered {
    void accept(@Nullable Stat stat);
  }

  /**
   * Sends an exists request without waiting. Its answer (OK or no node) is given to {@code answered}
   * on ZooKeeper's event thread, before the future completes: so in order with the session's watch
   * events and other answers, as the client library dispatches them in the order they came.
   */
  static CompletableFuture<Stat> existsAsync(ZooKeeper zk, String path, @Nullable Watcher watcher, Answered answered) {
    CompletableFuture<Stat> f = new CompletableFuture<>();
    zk.exists(path, watcher, (rc, p, ctx, stat) -> {
      int code = rc == Code.NONODE.intValue() ? 0 : rc;
      try {
        if (code == 0) {
          answered.accept(stat);
        }
      } finally {
        settle(f, code, p, stat);
      }
    }, null);
    return f;
  }

  /**
   * Sends a sync, to be {@linkplain #await awaited} later. The requests sent after it on this
   * session are answered after it, each as of a moment after the leader saw the sync, so after
   * the sync was sent; a read alone may be served by a follower that is behind.
   */
  CompletableFuture<Void> syncLater() {
    reachedLeader = true;
    CompletableFuture<Void> f = new CompletableFuture<>();
    zk.sync("/", (rc, p, ctx) -> settle(f, rc, p, null), null);
    return f;
  }

  void delete(String path) throws KeeperException {
    reachedLeader = true;
    CompletableFuture<Void> f = new CompletableFuture<>();
    zk.delete(path, -1, (rc, p, ctx) -> settle(f, rc, p, null), null);
    await(f);
  }

  void setData(String path, byte[] data) throws KeeperException {
    reachedLeader = true;
    CompletableFuture<Void> f = new CompletableFuture<>();
    zk.setData(path, data, -1, (rc, p, ctx, stat) -> settle(f, rc, p, null), null);
    await(f);
  }

  /** The answer, or OPERATIONTIMEOUT once the deadline has passed; never interrupted. */
  <T> T await(CompletableFuture<T> f) throws KeeperException {
    while (true) {
      try {
        return f.get(Math.max(0, deadline - ticker.read()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        interrupted = true;
      } catch (TimeoutException e) {
        throw KeeperException.create(Code.OPERATIONTIMEOUT);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof KeeperException k) {
          throw k;
        }
        throw new IllegalStateException(e.getCause());
      }
    }
  }

  /** Completes {@code f} with {@code value} for a result code of OK, else with the error. */
  private static <T> void settle(CompletableFuture<T> f, int rc, String path, @Nullable T value) {
    if (rc == Code.OK.intValue()) {
      f.complete(value);
    } else {
      f.completeExceptionally(KeeperException.create(Code.get(rc), path));
    }
  }
}

package dev.dlock;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A distributed read-write lock: many readers at once, across threads and clients, or one writer.
 * A queued writer holds back readers that come after it, so a stream of readers cannot starve
 * writers; a writer's release lets the waiting readers in together.
 *
 * <p>Both locks are reentrant by thread and have the handle API of {@link DistributedLock}, each
 * grant with its own fencing token. A thread holding the write lock may take the read lock too and
 * then release the write lock: a downgrade. A thread holding only the read lock that asks for the
 * write lock is refused at once with {@link IllegalStateException}, since it would wait for itself.
 */
public interface DistributedReadWriteLock extends ReadWriteLock {

  /** The lock name shared by both locks. */
  String name();

  /** The shared lock. */
  @Override
  DistributedLock readLock();

  /** The exclusive lock. */
  @Override
  DistributedLock writeLock();
}

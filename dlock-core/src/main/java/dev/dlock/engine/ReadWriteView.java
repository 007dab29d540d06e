package dev.dlock.engine;

import dev.dlock.DistributedLock;
import dev.dlock.DistributedReadWriteLock;

/** A {@link DistributedReadWriteLock}: the pair of views; all state lives in the engine. */
record ReadWriteView(String name, DistributedLock readLock, DistributedLock writeLock)
    implements DistributedReadWriteLock {}

package dev.dlock;

import dev.dlock.spi.LockKind;
import dev.dlock.spi.Ticker;
import java.time.Duration;

/**
 * One lock a client holds, as {@link LockClient#held()} saw it, for status displays.
 *
 * @param name      the lock name
 * @param kind      what the grant excludes: exclusive, fair, read, write or one permit
 * @param token     the fencing token of the grant
 * @param remaining the time left on the lease by the client's {@link Ticker}; zero once it ran out
 *                  and the client has not yet noticed
 * @param holdCount how many times it is held: reentries by the owner thread and open lease handles
 * @param owner     the name of the thread that took it through the {@code Lock} methods, or
 *                  {@link #HANDLE} while one or more {@link Lease} handles hold it
 */
public record HeldLock(String name, LockKind kind, long token, Duration remaining, int holdCount,
    String owner) {

  /** The {@link #owner()} of a lock held through {@link Lease} handles, which no thread owns. */
  public static final String HANDLE = "handle";
}

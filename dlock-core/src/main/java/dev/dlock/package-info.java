/**
 * dlock's API: {@link dev.dlock.LockClient} connects to a backend by URL and hands out
 * {@link dev.dlock.DistributedLock}s, whose grants are {@link dev.dlock.Lease}s with fencing tokens
 * and loss signals. Everything else in this package is package-private engine.
 */
@NullMarked
package dev.dlock;

import org.jspecify.annotations.NullMarked;

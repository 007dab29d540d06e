/**
 * dlock's API: {@link dev.dlock.LockClient} connects to a backend by URL and hands out
 * {@link dev.dlock.DistributedLock}s, whose grants are {@link dev.dlock.Lease}s with fencing tokens
 * and loss signals. This package is the API only; the engine behind it lives in
 * {@code dev.dlock.engine}, which the module does not export.
 */
@NullMarked
package dev.dlock;

import org.jspecify.annotations.NullMarked;

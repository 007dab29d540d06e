/**
 * The service-provider interface a lock backend implements: a few primitive operations
 * ({@link dev.dlock.spi.LockBackend}) and a provider found by URL scheme
 * ({@link dev.dlock.spi.LockBackendProvider}). Backends never depend on each other.
 */
@NullMarked
package dev.dlock.spi;

import org.jspecify.annotations.NullMarked;

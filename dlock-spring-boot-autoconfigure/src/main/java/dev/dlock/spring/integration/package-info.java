/**
 * dlock for Spring Integration: {@link dev.dlock.spring.integration.DlockLockRegistry}, a
 * {@code LockRegistry} over a {@link dev.dlock.LockClient}.
 */
@NullMarked
package dev.dlock.spring.integration;

import org.jspecify.annotations.NullMarked;

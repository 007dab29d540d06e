/**
 * The Redis backend behind {@code redis://} and {@code rediss://} URLs: owner-checked leases in Lua
 * scripts (S8, S9) with fencing tokens, batch renewal, and one waiting client woken per release;
 * also fair locks, read-write locks and semaphores of leases.
 * Only {@link dev.dlock.redis.RedisBackendProvider} is public; clients reach the backend by URL.
 */
@NullMarked
package dev.dlock.redis;

import org.jspecify.annotations.NullMarked;

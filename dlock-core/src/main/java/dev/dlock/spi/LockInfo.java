package dev.dlock.spi;

import java.time.Duration;

/**
 * What the server knows of a held lock, for status displays.
 *
 * @param name      the lock name
 * @param owner     the owner string of the current grant: the holder's client id, ':' and a sequence
 * @param token     the fencing token of the current grant
 * @param remaining the time left on the lease by the server's clock
 */
public record LockInfo(String name, String owner, long token, Duration remaining) {}

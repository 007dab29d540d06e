package dev.dlock.examples.cache;

import java.time.Instant;

/** One rebuild of a gear's cache entry: where, under which grant of the lock, and when. */
public record Rebuild(String gearId, String node, long token, Instant start, Instant end) {}

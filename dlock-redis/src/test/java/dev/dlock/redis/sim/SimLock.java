package dev.dlock.redis.sim;

/**
 * The value of acquire.lua's lock key, '<state><ms> <owner>', and when the key expires (server
 * microseconds). For the fair lock, the key holds the owner alone: state and ms are unused.
 */
record SimLock(char state, long ms, String holder, long expiresAt) {}

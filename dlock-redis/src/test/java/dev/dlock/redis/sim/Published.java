package dev.dlock.redis.sim;

/**
 * A message a script published to a client's channel: a pushed grant of the exclusive lock
 * ({@code token > 0}, release.lua's '<seq> <token> <name>') or a wake-up of a fair waiter
 * ({@code token == 0}, the prelude's tell: '*<seq> <name>').
 */
record Published(String client, String owner, long token) {}

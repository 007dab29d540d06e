package dev.dlock.redis.sim;

/**
 * A message a script published to a client's channel: a pushed grant ({@code token > 0}, the
 * prelude's offer: '<kind><seq> <token> <name>') or a wake-up without a grant ({@code token == 0},
 * the prelude's tell: '*<seq> <name>').
 */
record Published(String client, String owner, long token) {}

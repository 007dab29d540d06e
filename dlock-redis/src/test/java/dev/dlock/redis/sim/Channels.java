package dev.dlock.redis.sim;

/** PUBLISH as a script sees it: the number of subscribers that got the message, here 0 or 1. */
interface Channels {
  boolean publish(Published message);
}

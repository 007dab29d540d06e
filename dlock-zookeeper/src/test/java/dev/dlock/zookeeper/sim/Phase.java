package dev.dlock.zookeeper.sim;

/** Where a simulated client is with the lock. */
enum Phase { IDLE, QUEUEING, WAITING, HOLDING, RELEASING, DEAD }

package dev.dlock.bench;

import dev.dlock.bench.targets.Target;
import java.util.concurrent.locks.Lock;
import java.util.function.IntFunction;

/**
 * A target for the harness's own tests: no server, nothing to set up, and the lock each client
 * gets from {@code lockOf}. Why a class: the tests that need a target of their own differ only in
 * its name and its locks.
 */
record OneLockTarget(String name, IntFunction<Lock> lockOf) implements Target {

  @Override
  public void setUp(int clients) {}

  @Override
  public Lock lock(int client, String key) {
    return lockOf.apply(client);
  }

  @Override
  public void tearDown() {}
}

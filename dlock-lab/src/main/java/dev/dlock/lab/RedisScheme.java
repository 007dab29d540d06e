package dev.dlock.lab;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * What the lab's Redis schemes (S4 to S8-wrong) share: one Lettuce connection, the key of a lock,
 * owner values {@code <process>:<counter>}, and the articles' waiting: try, sleep a little, try
 * again until the wait runs out. Why a base class: the schemes differ only in one attempt and one
 * release, and the poll loop must be the same for all of them to compare.
 */
abstract class RedisScheme implements Scheme {
  /** Lettuce's command timeout: a paused server fails a call instead of hanging the worker. */
  static final Duration TIMEOUT = Duration.ofSeconds(2);

  final String process;
  final RedisCommands<String, String> redis;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private long counter;

  RedisScheme(String url, String process) {
    if (!url.startsWith("redis://")) {
      throw new IllegalArgumentException("a lab Redis scheme needs a redis:// URL, not " + url);
    }
    this.process = process;
    RedisURI uri = RedisURI.create(url);
    uri.setTimeout(TIMEOUT);
    client = RedisClient.create(uri);
    connection = client.connect();
    redis = connection.sync();
  }

  /** One attempt to take {@code key}; null if it is taken. */
  abstract Held tryOnce(String key, Duration lease) throws Exception;

  @Override
  public Held acquire(String lock, Duration lease, Duration wait) throws Exception {
    long deadline = System.nanoTime() + wait.toNanos();
    String key = "lab:" + lock;
    while (true) {
      Held held = tryOnce(key, lease);
      if (held != null) {
        return held;
      }
      if (System.nanoTime() - deadline >= 0) {
        return null;
      }
      TimeUnit.MILLISECONDS.sleep(ThreadLocalRandom.current().nextLong(5, 21));
    }
  }

  /** A fresh owner value for one grant. */
  String nextValue() {
    return process + ":" + (++counter);
  }

  /** The process named by an owner value, {@code ""} for none. */
  static String owner(String value) {
    if (value == null) {
      return "";
    }
    int colon = value.indexOf(':');
    return colon < 0 ? value : value.substring(0, colon);
  }

  @Override
  public boolean fenced() {
    return false;
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}

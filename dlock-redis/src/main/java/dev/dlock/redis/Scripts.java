package dev.dlock.redis;

import dev.dlock.internal.CallTimeout;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The Lua scripts, read from this package's {@code .lua} resources and run by SHA. Why reload on
 * NOSCRIPT: a restarted (or failed-over) Redis has an empty script cache, so a script that is
 * missing is loaded again and run once more. Why wait on futures here: Lettuce's blocking API
 * gives up when the calling thread is interrupted, but {@code Lock.lock()} must ignore interrupts
 * and an unlock must not fail because the flag is set; the wait here keeps the flag. It is bounded
 * by the caller's deadline ({@link CallTimeout}), or else by the command timeout and a second more
 * (so that Lettuce's own timeout fires first); one deadline covers a whole call, reload and retry
 * included. A reply not in by then is cancelled, so a command still queued for a connection that
 * is down is never sent.
 */
final class Scripts {
  enum Script {
    ACQUIRE("acquire.lua", ScriptOutputType.MULTI),
    RELEASE("release.lua", ScriptOutputType.INTEGER),
    RENEW("renew.lua", ScriptOutputType.MULTI),
    INSPECT("inspect.lua", ScriptOutputType.MULTI),
    FAIR_ACQUIRE("fair-acquire.lua", ScriptOutputType.MULTI),
    FAIR_RELEASE("fair-release.lua", ScriptOutputType.INTEGER),
    RW_ACQUIRE("rw-acquire.lua", ScriptOutputType.MULTI),
    RW_RELEASE("rw-release.lua", ScriptOutputType.INTEGER),
    SEM_ACQUIRE("sem-acquire.lua", ScriptOutputType.MULTI),
    SEM_RELEASE("sem-release.lua", ScriptOutputType.INTEGER),
    RENEW_KINDS("renew-kinds.lua", ScriptOutputType.MULTI),
    REDLOCK_ACQUIRE("redlock-acquire.lua", ScriptOutputType.MULTI),
    REDLOCK_RELEASE("redlock-release.lua", ScriptOutputType.INTEGER);

    final String file;
    final ScriptOutputType output;

    Script(String file, ScriptOutputType output) {
      this.file = file;
      this.output = output;
    }
  }

  /**
   * The most calls of one {@link #runAll} that await their replies at once. Why a limit: on a
   * cluster a renewal round is a call per slot, thousands of them, and the connection's queue
   * ({@link Connections#QUEUE_LIMIT}) is shared with every other caller; a few dozen in flight
   * already keep the server busy.
   */
  static final int IN_FLIGHT = 64;

  private final RedisClusterAsyncCommands<byte[], byte[]> commands;
  private final Duration timeout;
  private final LongSupplier clock;
  private final EnumMap<Script, byte[]> sources = new EnumMap<>(Script.class);
  private final EnumMap<Script, String> shas = new EnumMap<>(Script.class);

  /**
   * @param timeout the command timeout
   * @param clock   the monotonic clock of the waits, in nanoseconds
   */
  Scripts(RedisClusterAsyncCommands<byte[], byte[]> commands, Duration timeout, LongSupplier clock) {
    this.commands = commands;
    this.timeout = timeout;
    this.clock = clock;
    for (Script s : Script.values()) {
      sources.put(s, source(s.file));
    }
  }

  /** SCRIPT LOAD of every script. */
  synchronized void load() {
    Deadline d = deadline();
    for (Script s : Script.values()) {
      shas.put(s, await(commands.scriptLoad(source(s)), d));
    }
  }

  /** The command timeout. */
  Duration timeout() {
    return timeout;
  }

  <T> T run(Script s, byte[][] keys, byte[]... args) {
    String sha;
    synchronized (this) {
      sha = shas.get(s);
    }
    Deadline d = deadline();
    try {
      return await(commands.evalsha(sha, s.output, keys, args), d);
    } catch (RedisNoScriptException e) {
      return await(commands.evalsha(reload(s, d), s.output, keys, args), d);
    }
  }

  /**
   * Runs {@code calls} pipelined: sends each without waiting for the replies before it (at most
   * {@link #IN_FLIGHT} unanswered), and takes the replies in order, all within one deadline, as
   * {@link #run} takes one; a call that meets NOSCRIPT is loaded and run once more. The first
   * failure is thrown, and the calls not yet answered are cancelled.
   *
   * @return the raw replies, in the order of {@code calls}
   */
  List<Object> runAll(List<? extends ScriptCall<?>> calls) {
    Deadline d = deadline();
    List<RedisFuture<Object>> sent = new ArrayList<>(calls.size());
    List<Object> replies = new ArrayList<>(calls.size());
    try {
      for (ScriptCall<?> c : calls) {
        if (sent.size() - replies.size() >= IN_FLIGHT) {
          replies.add(reply(calls.get(replies.size()), sent.get(replies.size()), d));
        }
        String sha;
        synchronized (this) {
          sha = shas.get(c.script());
        }
        sent.add(commands.evalsha(sha, c.script().output, c.keys(), c.args()));
      }
      while (replies.size() < sent.size()) {
        replies.add(reply(calls.get(replies.size()), sent.get(replies.size()), d));
      }
      return replies;
    } catch (RuntimeException e) {
      sent.forEach(f -> f.cancel(true));
      throw e;
    }
  }

  private Object reply(ScriptCall<?> c, Future<Object> sent, Deadline d) {
    try {
      return await(sent, d);
    } catch (RedisNoScriptException e) {
      return await(commands.evalsha(reload(c.script(), d), c.script().output, c.keys(), c.args()), d);
    }
  }

  /** SCRIPT LOAD of {@code s}, which a restarted (or failed-over) server has forgotten. */
  private String reload(Script s, Deadline d) {
    String loaded = await(commands.scriptLoad(source(s)), d);
    synchronized (this) {
      shas.put(s, loaded);
    }
    return loaded;
  }

  /** Sends a script without waiting for its reply, for best-effort clean-up. */
  RedisFuture<Object> send(Script s, byte[][] keys, byte[]... args) {
    String sha;
    synchronized (this) {
      sha = shas.get(s);
    }
    return commands.evalsha(sha, s.output, keys, args);
  }

  /** Like {@link #run}, without blocking: the reply, or the failure, completes the future. */
  <T> CompletableFuture<T> runAsync(Script s, byte[][] keys, byte[]... args) {
    String sha;
    synchronized (this) {
      sha = shas.computeIfAbsent(s, unloaded -> sha1(source(unloaded)));
    }
    return runAsync(source(s), sha, s.output, keys, args);
  }

  /**
   * Runs any script source by its SHA without blocking; on NOSCRIPT (a restarted server) it is
   * loaded and run once more, still without blocking, so one slow server holds up no caller.
   */
  <T> CompletableFuture<T> runAsync(byte[] source, String sha, ScriptOutputType output,
      byte[][] keys, byte[]... args) {
    CompletableFuture<T> first = commands.<T>evalsha(sha, output, keys, args).toCompletableFuture();
    return first.handle((value, error) -> {
      Throwable cause = error instanceof CompletionException && error.getCause() != null
          ? error.getCause() : error;
      if (cause == null) {
        return CompletableFuture.completedFuture(value);
      }
      if (!(cause instanceof RedisNoScriptException)) {
        return CompletableFuture.<T>failedFuture(cause);
      }
      return commands.scriptLoad(source).toCompletableFuture().thenCompose(loaded ->
          commands.<T>evalsha(loaded, output, keys, args).toCompletableFuture());
    }).thenCompose(f -> f);
  }

  /** The source of {@code s}, which the constructor read. */
  private byte[] source(Script s) {
    return Objects.requireNonNull(sources.get(s), () -> "no source read for script " + s);
  }

  /** A script of this package that is not one of {@link Script}, read once by its user. */
  static byte[] resource(String file) {
    return source(file);
  }

  /**
   * A script as Redis runs it: the shared prelude ({@code prelude.lua}: the token draw, the clock,
   * the check for keys dlock did not write), then the script. Joined as bytes, never built from
   * strings, so the scripts stay plain Lua files.
   */
  private static byte[] source(String file) {
    byte[] prelude = read("prelude.lua");
    byte[] script = read(file);
    byte[] joined = Arrays.copyOf(prelude, prelude.length + script.length);
    System.arraycopy(script, 0, joined, prelude.length, script.length);
    return joined;
  }

  /** The SHA1 by which Redis knows a script, as SCRIPT LOAD answers it. */
  static String sha1(byte[] source) {
    try {
      StringBuilder hex = new StringBuilder(40);
      for (byte b : MessageDigest.getInstance("SHA-1").digest(source)) {
        hex.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
      }
      return hex.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-1 in this JVM", e);
    }
  }

  /** Runs any other command the same way. */
  <T> T call(Supplier<? extends Future<T>> command) {
    Deadline d = deadline();
    return await(command.get(), d);
  }

  /**
   * When a call must have its reply, on {@link #clock}; {@code caller} if the caller's deadline
   * set it rather than the command timeout.
   */
  private record Deadline(long at, long limitNanos, boolean caller) {}

  private Deadline deadline() {
    long own = timeout.plusSeconds(1).toNanos();
    long bound = CallTimeout.boundNanos(own);
    return new Deadline(clock.getAsLong() + bound, bound, bound < own);
  }

  /** Waits for a reply until {@code d} without giving up on an interrupt, which stays set. */
  private <T> T await(Future<T> future, Deadline d) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return future.get(Math.max(0, d.at() - clock.getAsLong()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RuntimeException r) {
            throw r;
          }
          throw new RedisException(e.getCause());
        } catch (TimeoutException e) {
          future.cancel(true);
          throw new RedisCommandTimeoutException(String.format("no reply within %d ms (%s)",
              TimeUnit.NANOSECONDS.toMillis(d.limitNanos()), d.caller() ? "the caller's deadline" : "the command timeout and 1 s"));
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static byte[] read(String file) {
    try (InputStream in = Scripts.class.getResourceAsStream(file)) {
      if (in == null) {
        throw new IllegalStateException("script resource missing: dev/dlock/redis/" + file);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read script dev/dlock/redis/" + file, e);
    }
  }
}

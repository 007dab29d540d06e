package dev.dlock.redis;

import dev.dlock.BackendUnavailableException;
import dev.dlock.LockException;
import io.lettuce.core.RedisFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The one way the single-server backend and its helpers (replicas, the other lock kinds) reach
 * Redis: it owns the connections and the scripts, and turns any failure (a timeout, a dropped
 * connection, an error reply) into a {@link BackendUnavailableException} that names the server and
 * the operation, with the cause chained. Why one class: each helper got it from the backend and
 * called back into it; now the backend makes this and passes it down.
 */
final class Calls {
  private final Connections connections;
  private final Scripts scripts;
  private final String server;

  /** @param server the backend's description, for the messages */
  Calls(Connections connections, Scripts scripts, String server) {
    this.connections = connections;
    this.scripts = scripts;
    this.server = server;
  }

  /** The backend's description, as the messages name it. */
  String server() {
    return server;
  }

  /** The command timeout. */
  Duration timeout() {
    return scripts.timeout();
  }

  /**
   * Runs a script and reads its reply. A key of the lock that holds what dlock did not write there
   * fails it with a LockException naming the key and what it holds, not as a server failure.
   *
   * @param what the operation, for the messages, such as {@code acquire lock 't5'}; built only for
   *     a failure, as a call that succeeds (nearly all) has no use for it
   */
  <R> R run(Supplier<String> what, ScriptCall<R> c) {
    Object raw;
    try {
      raw = call(what, () -> scripts.run(c.script(), c.keys(), c.args()));
    } catch (BackendUnavailableException e) {
      LockException foreign = ForeignValue.find(e, c.keys(), what.get(), server);
      throw foreign != null ? foreign : e;
    }
    return c.reply().apply(raw);
  }

  /**
   * Runs several script calls pipelined ({@link Scripts#runAll}) and reads their replies, in order.
   * A failure of any of them fails all, as {@link #run} fails; it is for scripts that report a key
   * dlock did not write in their reply, as the renewals do, not as an error.
   *
   * @param what the operation they make up, for the messages, such as {@code renew 5 lease(s)}
   */
  <R> List<R> runAll(String what, List<ScriptCall<R>> calls) {
    List<Object> raw = call(() -> what, () -> scripts.runAll(calls));
    List<R> replies = new ArrayList<>(raw.size());
    for (int i = 0; i < raw.size(); i++) {
      replies.add(calls.get(i).reply().apply(raw.get(i)));
    }
    return replies;
  }

  /** Sends a script without waiting for its reply, for best-effort clean-up. */
  RedisFuture<Object> send(ScriptCall<?> c) {
    return scripts.send(c.script(), c.keys(), c.args());
  }

  /** Sends any other command on {@code connections} and waits for its reply, as {@link #run} does. */
  <T> T command(String what, Function<Connections, ? extends Future<T>> command) {
    return call(() -> what, () -> scripts.call(() -> command.apply(connections)));
  }

  /** Runs {@code op}; any failure becomes a BackendUnavailableException naming the server and {@code what}. */
  <T> T call(Supplier<String> what, Supplier<T> op) {
    try {
      return op.get();
    } catch (BackendUnavailableException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new BackendUnavailableException(
          String.format("redis %s failed to %s: %s", server, what.get(), reason(e)), e);
    }
  }

  /** The messages of an exception and its causes, such as a refused connection's WRONGPASS. */
  static String reason(Throwable e) {
    StringBuilder sb = new StringBuilder();
    for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
      String m = t.getMessage();
      if (m != null && sb.indexOf(m) < 0) {
        sb.append(sb.length() == 0 ? "" : ": ").append(m);
      }
    }
    return sb.length() == 0 ? e.getClass().getName() : sb.toString();
  }
}

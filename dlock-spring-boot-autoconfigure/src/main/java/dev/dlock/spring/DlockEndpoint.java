package dev.dlock.spring;

import dev.dlock.HeldLock;
import dev.dlock.LockClient;
import dev.dlock.spi.LockInfo;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The actuator endpoint {@code dlock}: {@code GET /actuator/dlock} lists the locks the
 * application's client holds now, and {@code GET /actuator/dlock/{name}} asks the server who holds
 * one lock, 404 when nobody does.
 *
 * <p>Why the time left is in milliseconds rather than a {@code Duration}: how a {@code Duration}
 * comes out in JSON depends on the mapper's settings, and a number with its unit in the field name
 * reads the same everywhere. Why client ids are cut to their first 8 hex digits: an owner string
 * is what lets a client renew or release its grant, so the whole of it is not shown over HTTP; 8
 * digits still tell the clients apart.
 */
@Endpoint(id = "dlock")
public class DlockEndpoint {
  private final LockClient client;

  /** @param client the client whose locks are shown and whose server is asked */
  public DlockEndpoint(LockClient client) {
    this.client = client;
  }

  /** The locks this application's client holds now, ordered by name; no server call. */
  @ReadOperation
  public HeldLocks held() {
    return new HeldLocks(mask(client.id()), client.held().stream().map(Held::of).toList());
  }

  /**
   * Who holds {@code name} now by the server's account, whichever client it is; null, which the
   * actuator answers with 404, when nobody does.
   */
  @ReadOperation
  public @Nullable Holder inspect(@Selector String name) {
    return client.inspect(name).map(Holder::of).orElse(null);
  }

  /**
   * The answer of {@link #held()}.
   *
   * @param client the id of the application's client, cut to its first 8 hex digits
   * @param locks  the locks it holds, ordered by name
   */
  public record HeldLocks(String client, List<Held> locks) implements OperationResponseBody {}

  /**
   * One lock the client holds; see {@link HeldLock}.
   *
   * @param name            the lock name
   * @param kind            {@code exclusive}, {@code fair}, {@code read}, {@code write} or
   *                        {@code permit}
   * @param token           the fencing token of the grant
   * @param remainingMillis the time left on the lease, by the client's clock
   * @param holdCount       reentries and open lease handles
   * @param owner           the owner thread's name, or {@code handle} for lease handles
   */
  public record Held(String name, String kind, long token, long remainingMillis, int holdCount,
      String owner) {

    static Held of(HeldLock lock) {
      return new Held(lock.name(), lock.kind().name().toLowerCase(Locale.ROOT), lock.token(),
          lock.remaining().toMillis(), lock.holdCount(), lock.owner());
    }
  }

  /**
   * The holder of one lock by the server's account; see {@link LockInfo}.
   *
   * @param name            the lock name
   * @param owner           the holder's client id, cut as in {@link HeldLocks}, ':' and a sequence
   * @param token           the fencing token of the current grant
   * @param remainingMillis the time left on the lease, by the server's clock
   */
  public record Holder(String name, String owner, long token, long remainingMillis)
      implements OperationResponseBody {

    static Holder of(LockInfo info) {
      return new Holder(info.name(), mask(info.owner()), info.token(), info.remaining().toMillis());
    }
  }

  /** A client id or owner string with the id's random part cut to 8 digits; see the class. */
  static String mask(String idOrOwner) {
    int colon = idOrOwner.lastIndexOf(':');
    String id = colon < 0 ? idOrOwner : idOrOwner.substring(0, colon);
    String rest = colon < 0 ? "" : idOrOwner.substring(colon);
    int dash = id.lastIndexOf('-');
    return id.length() - dash > 9 ? id.substring(0, dash + 9) + "…" + rest : idOrOwner;
  }
}

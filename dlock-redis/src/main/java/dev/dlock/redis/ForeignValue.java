package dev.dlock.redis;

import dev.dlock.LockException;
import dev.dlock.spi.Grant;
import io.lettuce.core.RedisCommandExecutionException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A key of a lock that holds what dlock did not write there: another program's value under
 * dlock's prefix, a hand-made {@code SET}, a key of another layout. Why an error and never "free"
 * or "held": such a lock is neither, and a guess either way could grant it twice or never, so the
 * caller learns which key it is and what it holds. Every script checks its keys (the prelude's
 * {@code foreign}) before it writes anything and answers {@code DLOCKFOREIGN <position> <what>},
 * which becomes a {@link LockException} here. A renewal instead counts such a grant lost and goes
 * on with the others, so one foreign key costs no other lease its renewal.
 */
final class ForeignValue {
  private static final Logger log = LoggerFactory.getLogger(ForeignValue.class);
  private static final String CODE = "DLOCKFOREIGN ";

  private ForeignValue() {}

  /**
   * The LockException for a foreign-value reply in {@code error} or its causes, or null if there
   * is none.
   *
   * @param keys   the script's keys, in order: the reply names one by its position
   * @param what   the operation, such as {@code acquire lock 't5'}
   * @param server where it ran, as the backend describes it
   */
  static @Nullable LockException find(Throwable error, byte[][] keys, String what, String server) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String m = t.getMessage();
      if (t instanceof RedisCommandExecutionException && m != null && m.startsWith(CODE)) {
        int space = m.indexOf(' ', CODE.length());
        int position = Integer.parseInt(m.substring(CODE.length(), space));
        return new LockException(message(keys[position - 1], m.substring(space + 1), what, server), t);
      }
    }
    return null;
  }

  /**
   * The positions, from 1, of the grants a renewal script reports no longer held. A foreign key's
   * grant is among them, and is logged here naming the key, as the loss the engine reports cannot
   * say why.
   */
  static Set<Integer> lost(List<Object> reply, byte[][] keys, List<Grant> grants, String server) {
    Set<Integer> positions = new HashSet<>();
    for (Object entry : reply) {
      if (entry instanceof List<?> foreign) {
        int position = ((Long) foreign.get(0)).intValue();
        positions.add(position);
        log.warn("dlock: the lease is lost: {}", message(keys[position - 1],
            new String((byte[]) foreign.get(1), StandardCharsets.UTF_8),
            "renew lock '" + grants.get(position - 1).name() + "'", server));
      } else {
        positions.add(((Long) entry).intValue());
      }
    }
    return positions;
  }

  private static String message(byte[] key, String found, String what, String server) {
    return String.format("cannot %s on %s: redis key '%s' holds %s, which dlock did not write there;"
        + " delete the key or use another key prefix", what, server,
        new String(key, StandardCharsets.UTF_8), found);
  }
}

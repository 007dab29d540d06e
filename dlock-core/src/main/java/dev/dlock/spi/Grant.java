package dev.dlock.spi;

import static java.util.Objects.requireNonNull;

/**
 * A lock granted to one owner: what renew and release are checked against.
 *
 * @param name  the lock name
 * @param owner the owner string the grant was made to
 * @param token the fencing token of the grant
 * @param kind  what the grant excludes
 */
public record Grant(String name, String owner, long token, LockKind kind) {
  /** Checks that every field is present. */
  public Grant {
    requireNonNull(name, "name");
    requireNonNull(owner, "owner");
    requireNonNull(kind, "kind");
  }

  /** An {@link LockKind#EXCLUSIVE} grant. */
  public Grant(String name, String owner, long token) {
    this(name, owner, token, LockKind.EXCLUSIVE);
  }
}

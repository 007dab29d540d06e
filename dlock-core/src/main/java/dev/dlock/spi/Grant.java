package dev.dlock.spi;

import static java.util.Objects.requireNonNull;

/**
 * A lock granted to one owner: what renew and release are checked against.
 *
 * @param name  the lock name
 * @param owner the owner string the grant was made to
 * @param token the fencing token of the grant
 */
public record Grant(String name, String owner, long token) {
  /** Checks that name and owner are present. */
  public Grant {
    requireNonNull(name, "name");
    requireNonNull(owner, "owner");
  }
}

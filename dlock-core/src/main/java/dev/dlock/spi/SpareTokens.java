package dev.dlock.spi;

/**
 * A capability of a {@link LockBackend} that leaves fencing tokens spare after each exclusive
 * grant: once an exclusive grant gets token T, no other grant of that lock ever gets a token at or
 * below T + {@link #spareTokens()}. The engine then passes such a grant to another thread of the
 * same client without asking the backend: the n-th holder in a row after the grant gets token
 * T + n, while the backend keeps knowing the grant by its first owner and token T (what renew,
 * release and inspect see). A backend with this capability is never asked {@link HandsOff#handOff}.
 */
public interface SpareTokens {

  /** How many tokens after each exclusive grant's own are never given to another grant; at least 1. */
  int spareTokens();
}

package dev.dlock.testkit.sim;

import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The properties every lock keeps, checked as a run goes: at most one holder whose grant its
 * client counts valid (mutual exclusion), each grant's token above every earlier one, and no live
 * waiter left unserved longer than a bound. Remembers the first violation; a model adds its own
 * checks through {@link #fail}.
 */
public final class Invariants {
  private long lastToken;
  private String lastOwner = "";
  private @Nullable String violation;

  /** Creates the checks of one run, with nothing granted yet. */
  public Invariants() {}

  /**
   * Returns the first violation.
   *
   * @return the first violation, or null while there is none
   */
  public @Nullable String violation() {
    return violation;
  }

  /**
   * Records a violation unless an earlier one was recorded.
   *
   * @param what the violation, starting with its kind (as "two holders")
   */
  public void fail(String what) {
    if (violation == null) {
      violation = what;
    }
  }

  /**
   * A grant or hand-off was made: its token must be above every earlier one.
   *
   * @param owner who got it, for the message
   * @param token its fencing token
   */
  public void granted(String owner, long token) {
    if (token <= lastToken) {
      fail("token not increasing: " + owner + " got " + token + " after " + lastOwner + " got " + lastToken);
    }
    lastToken = Math.max(lastToken, token);
    lastOwner = owner;
  }

  /**
   * At most one of {@code clients} may count its grant valid.
   *
   * @param now the virtual time, for the message
   * @param clients every client of the run
   */
  public void oneHolder(long now, List<? extends Holder> clients) {
    Holder holder = null;
    for (Holder c : clients) {
      if (c.holdsValid()) {
        if (holder != null) {
          fail("two holders at " + now + ": " + holder.holding() + " and " + c.holding());
        }
        holder = c;
      }
    }
  }

  /**
   * A live waiter that could have been served since {@code since} must be within {@code bound}.
   *
   * @param now the virtual time
   * @param since since when it could have been served
   * @param bound how long it may wait unserved
   * @param waiter who waits and on what, for the message
   */
  public void notStranded(long now, long since, long bound, Supplier<String> waiter) {
    if (now - since > bound) {
      fail("stranded at " + now + ": " + waiter.get() + ", over the bound of " + bound + " us");
    }
  }
}

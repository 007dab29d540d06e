package dev.dlock.testkit.sim;

/** A simulated client as the mutual-exclusion check reads it. */
public interface Holder {
  /**
   * Tells whether it holds a grant its client still counts valid.
   *
   * @return true while it holds a grant its client counts valid
   */
  boolean holdsValid();

  /**
   * Describes the grant it holds, for a violation's message.
   *
   * @return its owner, token and validity, as the model names them
   */
  String holding();
}

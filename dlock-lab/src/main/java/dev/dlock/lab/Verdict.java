package dev.dlock.lab;

/**
 * What a run or a cell showed. The order of {@link #severity()} is the order a cell reports the
 * worst of its runs: a broken resource outweighs a stuck lock, which outweighs a clean run, because
 * a lost write is silent while a stuck lock is at least seen.
 */
public enum Verdict {
  /** Nothing unsafe happened and every fault was recovered from. */
  SAFE,
  /** The protected resource was harmed, or two unfenced holders overlapped. */
  UNSAFE,
  /** A fault left the lock with no grant afterwards. */
  STUCK;

  /** The lower-case word reports print: {@code safe}, {@code unsafe} or {@code stuck}. */
  public String word() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** 0 for safe, 1 for stuck, 2 for unsafe: higher is worse. */
  public int severity() {
    return switch (this) {
      case SAFE -> 0;
      case STUCK -> 1;
      case UNSAFE -> 2;
    };
  }

  /** The worse of this and {@code other}. */
  public Verdict worst(Verdict other) {
    return other.severity() > severity() ? other : this;
  }
}

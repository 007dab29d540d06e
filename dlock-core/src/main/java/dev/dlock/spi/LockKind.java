package dev.dlock.spi;

/** What a grant excludes. A backend states the kinds it grants in {@link LockBackend#kinds()}. */
public enum LockKind {
  /** One holder at a time; waiters are served in no promised order. */
  EXCLUSIVE,
  /** One holder at a time; waiters across clients are served first come, first served. */
  FAIR,
  /** Shared with other readers of the name; excludes its writer. */
  READ,
  /** Excludes readers and other writers of the name; a queued writer holds back new readers. */
  WRITE,
  /** One of a fixed number of permits of the name; never reentrant. */
  PERMIT
}

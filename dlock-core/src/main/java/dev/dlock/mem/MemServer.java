package dev.dlock.mem;

import static java.util.Objects.requireNonNull;

import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-JVM lock server: every client connected to one server contends for the same names, as
 * clients of one Redis or database would. {@code mem:} and {@code mem:NAME} URLs reach JVM-wide
 * named servers; {@link #create(Ticker)} makes a private one whose clock a test can drive.
 *
 * <p>Leases expire by the server's clock. A release notifies only the longest-waiting live client,
 * so one waiter wakes per release; a waiter that stops polling for {@link #WAITER_TIMEOUT} is
 * dropped from the queue, so a crashed waiter cannot stall a lock.
 */
public final class MemServer {
  /** How long a queued waiter that stopped asking again keeps its place. */
  public static final Duration WAITER_TIMEOUT = Duration.ofSeconds(5);

  private static final ConcurrentHashMap<String, MemServer> NAMED = new ConcurrentHashMap<>();

  final Ticker ticker;
  /** Exclusive locks; the other kinds keep their own tables, so one name of each kind is apart. */
  final ConcurrentHashMap<String, MemEntry> entries = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, MemEntry> fair = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, MemEntry> readWrite = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, MemEntry> permits = new ConcurrentHashMap<>();
  final ConcurrentHashMap<String, MemBackend> sessions = new ConcurrentHashMap<>();
  final AtomicLong tokens = new AtomicLong();
  final long waiterTimeoutNanos = WAITER_TIMEOUT.toNanos();
  private final String name;

  private MemServer(String name, Ticker ticker) {
    this.name = name;
    this.ticker = ticker;
  }

  /** A private server whose lease arithmetic runs on {@code ticker}. */
  public static MemServer create(Ticker ticker) {
    return new MemServer("private-" + Integer.toHexString(System.identityHashCode(ticker)),
        requireNonNull(ticker, "ticker"));
  }

  /** The JVM-wide server behind {@code mem:NAME}; {@code "default"} is behind {@code mem:}. */
  public static MemServer named(String name) {
    requireNonNull(name, "name");
    return NAMED.computeIfAbsent(name, n -> new MemServer(n, Ticker.system()));
  }

  /** A new connection to this server, for one client; pass it to the client builder. */
  public LockBackend newBackend() {
    return new MemBackend(this);
  }

  /** How many names are held or waited on, of every kind: for tests that check nothing is left behind. */
  public int activeNames() {
    return entries.size() + fair.size() + readWrite.size() + permits.size();
  }

  ConcurrentHashMap<String, MemEntry> table(LockKind kind) {
    return switch (kind) {
      case EXCLUSIVE -> entries;
      case FAIR -> fair;
      case READ, WRITE -> readWrite;
      case PERMIT -> permits;
    };
  }

  List<ConcurrentHashMap<String, MemEntry>> tables() {
    return List.of(entries, fair, readWrite, permits);
  }

  String describe() {
    return "mem:" + name;
  }
}

package dev.dlock.lab;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the articles (or, for dlock's own locks, dlock) claim of each scheme, in one sentence, so
 * the report can set the claim beside what the runs showed. Kept as data in one place so a new
 * scheme id fails loudly here instead of printing an empty claim.
 */
public final class Claims {
  private static final String DLOCK = " dlock promises: fencing tokens that never go backwards, the"
      + " holder told of a lost lock before anyone else can hold it, and release by the owner only.";

  private static final Map<String, String[]> CLAIMS = new LinkedHashMap<>();

  static {
    put("none", "No lock",
        "Without a lock, workers enter the critical section together: the baseline of what a lock must prevent.");
    put("S1-h2", "dlock JDBC lease lock (H2)",
        "A unique row per lock with an expiry by the database clock and an owner check." + DLOCK);
    put("S1-pg", "dlock JDBC lease lock (PostgreSQL)",
        "A unique row per lock with an expiry by the database clock and an owner check." + DLOCK);
    put("S3-pg", "dlock JDBC session lock (PostgreSQL)",
        "A lock held by a database session and released when the session ends." + DLOCK);
    put("S2-h2", "Optimistic versioned update (H2)",
        "An UPDATE that checks the version read makes a buyer whose read went stale update nothing and"
            + " retry: stock is never oversold and no sale is lost, though under contention most attempts fail.");
    put("S8", "dlock Redis lock",
        "SET NX PX with a unique owner value, released by an atomic compare-and-delete." + DLOCK);
    put("S10", "dlock Redlock on 5 servers",
        "A majority of independent Redis servers must grant within the lease; safe while a majority lives"
            + " and clocks advance at a similar rate." + DLOCK);
    put("S12", "dlock ZooKeeper lock",
        "Ephemeral sequential nodes, each waiter watching only its predecessor: no herd, and a dead"
            + " holder's node vanishes with its session." + DLOCK);
    put("S12-ens", "dlock ZooKeeper lock on a 3-server ensemble",
        "The same lock on three servers in quorum mode: the lock outlives the loss of any one server,"
            + " and a holder cut off with a minority is told before the majority grants the lock again." + DLOCK);
    put("S13", "dlock ZooKeeper read-write lock",
        "Readers share the lock and writers hold it alone; each waiter watches only the node it waits on." + DLOCK);
    put("S14", "dlock Redis lock on Sentinel",
        "The Redis lock on a master that Sentinels fail over to its replica; replication is asynchronous,"
            + " so a grant the replica never received is forgotten by the failover." + DLOCK);
    put("S14-wait", "dlock Redis lock on Sentinel, waitReplicas=1",
        "The same, but a grant (or renewal) counts only once a replica acknowledged it (WAIT): a grant the"
            + " replica could not receive is released and the acquire fails." + DLOCK);
    put("S4", "SETNX then EXPIRE",
        "Setting the expiry as a second command leaves a lock with no expiry if the holder dies between"
            + " the two: every other worker waits forever.");
    put("S5", "SETNX with a client-clock expiry, GETSET on expiry",
        "The expiry is the client's clock, so clocks must agree; the value names no owner, so a late"
            + " holder can delete or overwrite the lock another worker holds.");
    put("S6", "Lua SETNX + EXPIRE, released by DEL",
        "The script makes acquire atomic, but the lock names no owner: a plain DEL frees whatever lock"
            + " is there, including the next holder's.");
    put("S7", "SET NX PX, released by DEL",
        "SET NX PX is atomic, but a plain DEL frees whatever lock is there: a holder paused past its"
            + " expiry deletes the next holder's lock.");
    put("S8-wrong", "SET NX PX, released by GET, compare, DEL",
        "Comparing the owner in the client and then deleting is two commands: the lock can expire and"
            + " pass to another worker between them, and the DEL then frees that worker's lock.");
    put("S11", "ZooKeeper: one ephemeral node, all waiters watch it",
        "A dead holder's node vanishes with its session, but every release wakes every waiter: the herd effect.");
    put("S13-naive", "ZooKeeper read-write lock, waiters watch the children",
        "Readers share and writers hold alone, but every waiter watches the whole directory, so every"
            + " change wakes them all: the herd effect.");
    put("redisson", "Redisson RLock (peer)",
        "A hash per lock naming the owning client and thread, kept alive by a watchdog while the JVM"
            + " runs and released by its owner only; no fencing token, and no word to a holder whose lease ran out.");
    put("redisson-fenced", "Redisson RFencedLock (peer)",
        "RLock with a fencing token, one higher on every grant, for the protected resource to check;"
            + " no word to a holder whose lease ran out.");
    put("curator", "Curator InterProcessMutex (peer)",
        "Ephemeral sequential nodes, each waiter watching its predecessor; a dead holder's node vanishes"
            + " with its session, and the holder is told SUSPENDED or LOST; no fencing token.");
    put("shedlock-jdbc", "ShedLock JDBC provider, database time (peer)",
        "A row per name, held until lockAtMostFor at most and released only by the node that holds it;"
            + " made to keep a scheduled task on one node: it cannot wait, has no token and never tells a holder.");
    put("spring-jdbc", "Spring Integration JdbcLockRegistry (peer)",
        "A row per lock with its client id and time, taken over once its time to live has passed by the"
            + " client's clock; unlock throws if the lock had expired; no token, no word to the holder.");
    put("spring-redis", "Spring Integration RedisLockRegistry (peer)",
        "A key per lock with the registry's id and an expiry, renewed by a task scheduler while held;"
            + " unlock throws if the lock had expired; no token, no word to the holder.");
  }

  private Claims() {}

  private static void put(String id, String title, String claim) {
    CLAIMS.put(id, new String[] {title, claim});
  }

  /** What is claimed of {@code scheme}; throws {@link IllegalArgumentException} for an unknown id. */
  public static String claim(String scheme) {
    return entry(scheme)[1];
  }

  /** A short name for {@code scheme}; throws {@link IllegalArgumentException} for an unknown id. */
  public static String title(String scheme) {
    return entry(scheme)[0];
  }

  /** Whether {@code scheme} is a known id. */
  public static boolean known(String scheme) {
    return CLAIMS.containsKey(scheme);
  }

  private static String[] entry(String scheme) {
    String[] entry = CLAIMS.get(scheme);
    if (entry == null) {
      throw new IllegalArgumentException("unknown scheme id: " + scheme + "; known: " + CLAIMS.keySet());
    }
    return entry;
  }
}

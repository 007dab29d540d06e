package dev.dlock.examples.cache;

import dev.dlock.Lease;
import dev.dlock.spring.DistributedLock;
import java.time.Instant;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/** The gears' cache entries, each rebuilt from the approvals by one writer at a time. */
@Service
public class GearCache {
  private final JdbcClient db;
  private final String node;

  public GearCache(JdbcClient db, @Value("${spring.application.name:gear-cache}") String node) {
    this.db = db;
    this.node = node;
  }

  /**
   * Rebuilds {@code gearId}'s entry from its approvals, under the gear's lock, waiting for it up
   * to {@code dlock.wait}. Callers pass null for {@code lease}: the lock passes in its own.
   */
  @DistributedLock(name = "'gear:' + #gearId")
  public Rebuild rebuild(String gearId, Lease lease) {
    Instant start = Instant.now();
    long approvals = db.sql("SELECT count(*) FROM gear_approval WHERE gear_id = ?").param(gearId)
        .query(Long.class).single();
    long rebuilds = db.sql("SELECT rebuilds FROM gear_cache WHERE gear_id = ?").param(gearId)
        .query(Long.class).optional().orElse(0L);
    // Read, then write: the lock, not the database, keeps two rebuilds from interleaving here.
    int updated = db.sql("UPDATE gear_cache SET approvals = ?, rebuilds = ?, token = ? WHERE gear_id = ?")
        .params(approvals, rebuilds + 1, lease.token(), gearId)
        .update();
    if (updated == 0) {
      db.sql("INSERT INTO gear_cache (gear_id, approvals, rebuilds, token) VALUES (?, ?, ?, ?)")
          .params(gearId, approvals, rebuilds + 1, lease.token())
          .update();
    }
    return new Rebuild(gearId, node, lease.token(), start, Instant.now());
  }

  /** The cache entry of {@code gearId}. */
  public Entry entry(String gearId) {
    return db.sql("SELECT approvals, rebuilds, token FROM gear_cache WHERE gear_id = ?").param(gearId)
        .query(Entry.class).optional()
        .orElseThrow(() -> new IllegalArgumentException("no cache entry for gear '" + gearId + "'"));
  }

  /** A cache entry: the approvals it was built from, how often it was rebuilt, and by which grant. */
  public record Entry(long approvals, long rebuilds, long token) {}
}

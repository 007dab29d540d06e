package dev.dlock.examples.cache;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/** The consumer of approvals: records each one, then rebuilds its gear's cache entry. */
@Component
public class Approvals {
  private final JdbcClient db;
  private final GearCache cache;

  public Approvals(JdbcClient db, GearCache cache) {
    this.db = db;
    this.cache = cache;
  }

  /** Handles one approval message; returns what the rebuild did. */
  public Rebuild approved(String gearId, String approvalId) {
    db.sql("INSERT INTO gear_approval (gear_id, approval_id) VALUES (?, ?)")
        .params(gearId, approvalId)
        .update();
    return cache.rebuild(gearId, null); // the lock passes the lease in
  }
}

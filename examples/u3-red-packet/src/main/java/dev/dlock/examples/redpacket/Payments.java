package dev.dlock.examples.redpacket;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The payments table. */
@Repository
public class Payments {
  private final JdbcClient db;

  public Payments(JdbcClient db) {
    this.db = db;
  }

  /** Whether {@code userId} has been paid already. */
  public boolean paidTo(long userId) {
    return db.sql("SELECT count(*) FROM payment WHERE user_id = ?").param(userId)
        .query(Long.class).single() > 0;
  }

  /** Pays {@code userId}; committed when this returns, while the caller still holds the lock. */
  public Payment pay(long userId, long amountCents, long token) {
    db.sql("INSERT INTO payment (user_id, amount_cents, token) VALUES (?, ?, ?)")
        .params(userId, amountCents, token)
        .update();
    return new Payment(userId, amountCents, token);
  }
}

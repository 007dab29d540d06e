package dev.dlock.examples.flashsale;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

/** The stock table: a quantity per SKU, and the highest fencing token that wrote it. */
@Repository
public class Stock {
  private final JdbcClient db;
  private final TransactionTemplate tx;

  public Stock(JdbcClient db, TransactionTemplate tx) {
    this.db = db;
    this.tx = tx;
  }

  /** Puts {@code quantity} items of a new SKU on sale. */
  public void add(String sku, int quantity) {
    db.sql("INSERT INTO stock (sku, quantity) VALUES (?, ?)").params(sku, quantity).update();
  }

  /** The items of {@code sku} left. */
  public int quantity(String sku) {
    return db.sql("SELECT quantity FROM stock WHERE sku = ?").param(sku).query(Integer.class).optional()
        .orElseThrow(() -> new IllegalArgumentException("no SKU '" + sku + "' in stock"));
  }

  /**
   * Sells one item if any is left: reads the quantity, then writes it less one together with
   * {@code token}. The read and the write are two statements, as in most business code, so only
   * the lock keeps two buyers from reading the same quantity. The commit happens here, before
   * the caller's lock is released, so the next holder reads what this one wrote.
   *
   * @throws StaleTokenException if a holder with a larger token has written the row: this
   *     caller's lease ran out (a long pause), and its write would undo a later sale
   */
  public boolean sellOne(String sku, String buyer, long token) {
    return Boolean.TRUE.equals(tx.execute(status -> {
      int left = quantity(sku);
      if (left <= 0) {
        return false;
      }
      int written = db.sql("UPDATE stock SET quantity = ?, fence = ? WHERE sku = ? AND fence <= ?")
          .params(left - 1, token, sku, token)
          .update();
      if (written == 0) {
        long fence = db.sql("SELECT fence FROM stock WHERE sku = ?").param(sku).query(Long.class).single();
        throw new StaleTokenException(sku, token, fence);
      }
      db.sql("INSERT INTO sale (sku, buyer, token) VALUES (?, ?, ?)").params(sku, buyer, token).update();
      return true;
    }));
  }

  /** A write refused because the row has seen a larger token than the writer's. */
  public static final class StaleTokenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StaleTokenException(String sku, long token, long fence) {
      super("stock of '" + sku + "' refused a write with token " + token
          + ": it was written with token " + fence + " already");
    }
  }
}

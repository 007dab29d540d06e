package dev.dlock.examples.flashsale;

import dev.dlock.spring.CurrentLease;
import dev.dlock.spring.DistributedLock;
import org.springframework.stereotype.Service;

/** Sells one item at a time per SKU, whichever node the buyer reached. */
@Service
public class FlashSale {
  private final Stock stock;

  public FlashSale(Stock stock) {
    this.stock = stock;
  }

  /**
   * Sells one item of {@code sku} to {@code buyer}: true if sold, false if sold out. Waits up to
   * 5 s for the SKU's lock, then throws {@link dev.dlock.LockTimeoutException}.
   */
  @DistributedLock(name = "'stock:' + #sku", maxWait = "PT5S")
  public boolean buy(String sku, String buyer) {
    // The write carries the token, so it lands only if no later holder has written since.
    long token = CurrentLease.get().orElseThrow().token();
    return stock.sellOne(sku, buyer, token);
  }
}

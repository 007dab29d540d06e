package dev.dlock.examples.redpacket;

import dev.dlock.spring.CurrentLease;
import dev.dlock.spring.DistributedLock;
import dev.dlock.spring.DistributedLock.OnTimeout;
import java.util.Optional;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/** Pays each user's red packet once, whichever node and however many times they claim it. */
@Service
public class RedPackets {
  private final Payments payments;
  private final long amountCents;

  public RedPackets(Payments payments, @Value("${redpacket.amount-cents:888}") long amountCents) {
    this.payments = payments;
    this.amountCents = amountCents;
  }

  /**
   * Claims {@code userId}'s red packet: the payment, or empty for a duplicate. A claim that finds
   * the user's lock held does not wait (maxWait PT0S) and is skipped: another claim of the same
   * user is being paid. One that gets the lock checks for an earlier payment before paying.
   */
  @DistributedLock(name = "'draw.redpacket.userid:' + #userId", maxWait = "PT0S",
      onTimeout = OnTimeout.SKIP)
  public Optional<Payment> claim(long userId) {
    if (payments.paidTo(userId)) {
      return Optional.empty();
    }
    long token = CurrentLease.get().orElseThrow().token();
    return Optional.of(payments.pay(userId, amountCents, token));
  }
}

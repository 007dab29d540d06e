package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.spi.Grant;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A gate change wakes only the thread it lets through: the first in line when the gate frees, the
 * waiter of the spec a grant is handed to. Waking every queued thread on each change made a client's
 * 16 threads on one lock spend their time waking and parking again.
 */
class GateWakeTest {
  private static final int WAITERS = 6;
  private final Spec spec = Spec.of("job", LockKind.EXCLUSIVE, 1, Duration.ofSeconds(30), true);
  private final NameState state = new NameState(spec.key(), "job", LockKind.EXCLUSIVE);

  /** Queues {@link #WAITERS} threads at the gate, which this thread holds, and waits until all park. */
  private List<CompletableFuture<NameState.Handed>> queue(Runnable whenThrough) throws Exception {
    assertThat(state.enterGate(spec, -1, Ticker.system(), null)).isSameAs(NameState.GATE);
    List<CompletableFuture<NameState.Handed>> through = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < WAITERS; i++) {
      CountDownLatch queued = new CountDownLatch(1);
      CompletableFuture<NameState.Handed> done = new CompletableFuture<>();
      Thread t = new Thread(() -> {
        try {
          done.complete(state.enterGate(spec, -1, Ticker.system(), queued::countDown));
          whenThrough.run();
        } catch (Throwable e) {
          done.completeExceptionally(e);
        }
      });
      t.start();
      // One at a time, so the queue's order is the start order.
      assertThat(queued.await(10, TimeUnit.SECONDS)).isTrue();
      threads.add(t);
      through.add(done);
    }
    for (Thread t : threads) {
      while (LockSupport.getBlocker(t) != state) {
        Thread.onSpinWait();
      }
    }
    return through;
  }

  @Test
  void eachLeaveOfTheGateWakesOneThread() throws Exception {
    List<CompletableFuture<NameState.Handed>> through = queue(state::leaveGate);
    int before = state.wakes();
    state.leaveGate();
    for (CompletableFuture<NameState.Handed> f : through) {
      assertThat(f.get(10, TimeUnit.SECONDS)).isSameAs(NameState.GATE);
    }
    // The chain: each leave lets the next in line through, and wakes it alone.
    assertThat(state.wakes() - before).as("threads woken for %d leaves", WAITERS).isEqualTo(WAITERS);
  }

  @Test
  void aHandedGrantWakesOneWaiterOfItsSpec() throws Exception {
    CountDownLatch taken = new CountDownLatch(1);
    List<CompletableFuture<NameState.Handed>> through = queue(taken::countDown);
    int before = state.wakes();
    assertThat(state.reserveHandOff(spec, NameState.MAX_STREAK)).isTrue();
    Grant grant = new Grant("job", "owner:1", 7, LockKind.EXCLUSIVE);
    assertThat(state.handOver(new NameState.Handed(spec, grant, null, 0, null))).isNull();
    assertThat(taken.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(state.wakes() - before).as("threads woken by one hand-off").isEqualTo(1);
    // The rest leave on close, which wakes them all; one thread, the first in line, took the grant.
    assertThat(state.close()).isNull();
    List<NameState.Handed> got = new ArrayList<>();
    for (CompletableFuture<NameState.Handed> f : through) {
      got.add(f.get(10, TimeUnit.SECONDS));
    }
    assertThat(got.get(0).grant()).isSameAs(grant);
    assertThat(got.subList(1, WAITERS)).containsOnly(NameState.GATE);
  }
}

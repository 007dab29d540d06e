package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.LockListener;
import dev.dlock.mem.MemServer;
import dev.dlock.spi.Grant;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Hand-offs within one client on a backend that leaves tokens spare: no backend call, the next
 * token, the old turn's validity, the backend grant renewed, lost and released as one.
 */
class LocalHandOffTest {
  private final MemServer server = MemServer.create(Ticker.system());

  /** A client whose listener counts threads that had to wait. */
  private static LockClient client(SpacedBackend backend, CountDownLatch waiting) {
    return LockClient.builder().backend(backend).listener(new LockListener() {
      @Override
      public void waited(String name) {
        waiting.countDown();
      }
    }).build();
  }

  /** Starts a thread that takes the lock once and runs {@code whileHeld} under it. */
  private static CompletableFuture<Void> taker(DistributedLock lock, Runnable whileHeld) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    new Thread(() -> {
      try {
        lock.lock();
        try {
          whileHeld.run();
        } finally {
          lock.unlock();
        }
        done.complete(null);
      } catch (Throwable e) {
        done.completeExceptionally(e);
      }
    }).start();
    return done;
  }

  @Test
  void turnsWithinTheClientTakeTheNextTokensWithNoBackendCallUntilTheStreakEnds() throws Exception {
    SpacedBackend backend = new SpacedBackend(server.newBackend());
    int takers = NameState.MAX_STREAK + 2;
    CountDownLatch waiting = new CountDownLatch(takers);
    try (LockClient client = client(backend, waiting)) {
      DistributedLock lock = client.lock("job");
      Lease first = lock.acquire();
      // One thread competes at the backend, the others queue in the client.
      List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
      List<Integer> releasesSeen = Collections.synchronizedList(new ArrayList<>());
      List<CompletableFuture<Void>> done = new ArrayList<>();
      for (int i = 0; i < takers; i++) {
        done.add(taker(lock, () -> {
          tokens.add(client.held().get(0).token());
          releasesSeen.add(backend.releases.get());
        }));
      }
      assertThat(waiting.await(10, TimeUnit.SECONDS)).as("all %d wait", takers).isTrue();
      int acquiresBefore = backend.acquires.get();
      long t = first.token();
      first.close();
      for (CompletableFuture<Void> d : done) {
        d.get(10, TimeUnit.SECONDS);
      }
      List<Long> handed = new ArrayList<>();
      for (long n = 1; n <= NameState.MAX_STREAK; n++) {
        handed.add(t + n);
      }
      assertThat(tokens.subList(0, NameState.MAX_STREAK)).as("the turns handed on").isEqualTo(handed);
      assertThat(releasesSeen.subList(0, NameState.MAX_STREAK)).as("releases at the backend meanwhile")
          .containsOnly(0);
      assertThat(tokens.get(NameState.MAX_STREAK)).as("after the streak, a grant from the backend")
          .isGreaterThan(t + 15);
      assertThat(tokens).isSorted().doesNotHaveDuplicates();
      assertThat(backend.acquires.get()).as("acquires after the first release")
          .isLessThanOrEqualTo(acquiresBefore + 3);
      assertThat(backend.releases.get()).as("each backend grant released once")
          .isEqualTo(backend.granted.get());
    }
  }

  @Test
  void aTurnKeepsTheOldValidityAndALossOfTheBackendGrantReachesIt() throws Exception {
    SpacedBackend backend = new SpacedBackend(server.newBackend());
    CountDownLatch waiting = new CountDownLatch(2);
    try (LockClient client = client(backend, waiting)) {
      DistributedLock lock = client.lock("job", Duration.ofSeconds(30)); // a fixed lease: never renewed
      Lease first = lock.acquire();
      Grant backendGrant = new Grant("job", first.toString().replaceAll(".*owner=(.*)]$", "$1"), first.token());
      CompletableFuture<Lease> second = new CompletableFuture<>();
      CountDownLatch lost = new CountDownLatch(1);
      List<CompletableFuture<Void>> done = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        done.add(CompletableFuture.runAsync(() -> {
          try (Lease l = lock.acquire()) {
            if (second.complete(l)) {
              assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
            }
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          } catch (LeaseLostException expected) {
            // the close of the lost lease says so
          }
        }, r -> new Thread(r).start()));
      }
      assertThat(waiting.await(10, TimeUnit.SECONDS)).as("both wait").isTrue();
      long validUntil = first.validUntilNanos();
      first.close();
      Lease l = second.get(10, TimeUnit.SECONDS);
      assertThat(l.token()).isEqualTo(first.token() + 1);
      assertThat(l.validUntilNanos()).as("the old turn's validity, not a new lease").isEqualTo(validUntil);
      assertThat(backend.releases.get()).isZero();
      backend.reportLost(backendGrant);
      LeaseLostException loss = l.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(loss).hasMessageContaining("token " + l.token());
      assertThat(l.isValid()).isFalse();
      lost.countDown();
      for (CompletableFuture<Void> d : done) {
        d.get(10, TimeUnit.SECONDS);
      }
    }
  }
}

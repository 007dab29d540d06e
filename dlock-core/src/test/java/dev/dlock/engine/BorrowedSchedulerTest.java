package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The view of a scheduler a client was given: it forgets its tasks once they ran or were cancelled. */
class BorrowedSchedulerTest {
  // As a user's scheduler may be: cancelled tasks stay in its queue until they are due.
  private final ScheduledThreadPoolExecutor owner = new ScheduledThreadPoolExecutor(1);
  private final BorrowedScheduler view = new BorrowedScheduler(owner);

  @AfterEach
  void stop() {
    owner.shutdownNow();
  }

  @Test
  void aCancelledTaskIsForgotten() {
    for (int i = 0; i < 1000; i++) {
      ScheduledFuture<?> f = view.schedule(() -> {}, 1, TimeUnit.HOURS);
      assertThat(f.cancel(false)).isTrue();
      assertThat(f.isCancelled()).isTrue();
    }
    assertThat(view.tracked()).isZero();
  }

  @Test
  void aTaskThatRanIsForgottenAndAShutDownViewCancelsTheRest() throws Exception {
    CountDownLatch ran = new CountDownLatch(1);
    view.schedule(ran::countDown, 0, TimeUnit.NANOSECONDS);
    ScheduledFuture<?> later = view.schedule(() -> {}, 1, TimeUnit.HOURS);
    assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    // The forget runs right after the task, on the owner's one thread: wait for its next task.
    owner.submit(() -> {}).get(10, TimeUnit.SECONDS);
    assertThat(view.tracked()).isEqualTo(1);
    view.shutdown();
    assertThat(later.isCancelled()).isTrue();
    assertThat(view.tracked()).isZero();
    assertThat(owner.isShutdown()).isFalse();
  }
}

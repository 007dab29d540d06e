package dev.dlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The contract of {@link VirtualTime} itself: order, nesting, cancelling and refusals. */
class VirtualTimeSchedulerTest {
  private final VirtualTime time = new VirtualTime(0);
  private final ScheduledExecutorService scheduler = time.scheduler();
  private final List<String> ran = new ArrayList<>();

  private void at(String label, long millis) {
    scheduler.schedule(() -> ran.add(label + "@" + time.ticker().read() / 1_000_000), millis,
        TimeUnit.MILLISECONDS);
  }

  @Test
  void tasksRunInDeadlineOrderWithTheClockAtTheirDeadline() {
    at("c", 30);
    at("a", 10);
    at("b", 10);
    at("late", 31);
    time.advance(Duration.ofMillis(30));
    assertThat(ran).containsExactly("a@10", "b@10", "c@30");
    assertThat(time.ticker().read()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(30));
    assertThat(time.pending()).isOne();
  }

  @Test
  void tasksScheduledByTasksRunInTheSameStepWhenDue() {
    scheduler.schedule(() -> {
      ran.add("outer");
      at("inner", 5);
      at("beyond", 50);
    }, 10, TimeUnit.MILLISECONDS);
    time.advance(Duration.ofMillis(20));
    assertThat(ran).containsExactly("outer", "inner@15");
    assertThat(time.pending()).isOne();
  }

  @Test
  void executedTasksWaitForTheNextStepAndCancelledOnesNeverRun() {
    scheduler.execute(() -> ran.add("executed"));
    ScheduledFuture<?> cancelled = scheduler.schedule(() -> ran.add("cancelled"), 1, TimeUnit.SECONDS);
    assertThat(ran).as("nothing runs on the caller's thread").isEmpty();
    assertThat(cancelled.cancel(false)).isTrue();
    time.runDue();
    assertThat(ran).containsExactly("executed");
    time.advance(Duration.ofSeconds(2));
    assertThat(ran).containsExactly("executed");
    assertThat(time.pending()).isZero();
  }

  @Test
  void aFailingTaskEndsTheStepWithItsException() {
    scheduler.schedule(() -> {
      throw new IllegalStateException("boom");
    }, 1, TimeUnit.SECONDS);
    at("after", 2_000);
    assertThatThrownBy(() -> time.advance(Duration.ofSeconds(3))).hasMessage("boom");
    assertThat(ran).isEmpty();
    assertThat(time.ticker().read()).as("the clock stays at the failed task").isEqualTo(1_000_000_000L);
    time.advance(Duration.ofSeconds(1));
    assertThat(ran).containsExactly("after@2000");
  }

  @Test
  void negativeStepsAndShutdownAreRefused() {
    assertThatThrownBy(() -> time.advance(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-0.001S");
    assertThatThrownBy(scheduler::shutdown).isInstanceOf(IllegalStateException.class);
    assertThat(scheduler.isShutdown()).isFalse();
  }
}

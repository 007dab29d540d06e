package dev.dlock.examples.nightly;

import dev.dlock.spring.CurrentLease;
import dev.dlock.spring.ScheduledLock;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** The nightly job: every node schedules it, the lock lets one node run each tick. */
@Component
public class NightlyReport {
  private final JdbcClient db;
  private final ApplicationEventPublisher events;
  private final String node;

  public NightlyReport(JdbcClient db, ApplicationEventPublisher events,
      @Value("${report.node:${HOSTNAME:local}}") String node) {
    this.db = db;
    this.events = events;
    this.node = node;
  }

  /**
   * Writes the report of this tick. lockAtLeastFor keeps the lock a while after a short run, so a
   * node whose clock is a little behind finds it held instead of running the same tick again.
   */
  @Scheduled(cron = "${report.cron:0 0 2 * * *}")
  @ScheduledLock(name = "nightly-report", lockAtMostFor = "PT30M",
      lockAtLeastFor = "${report.lock-at-least-for:PT30S}")
  public void run() {
    // Rounded, not truncated: a trigger that fires a few ms early still names its own second.
    long tick = Math.round(System.currentTimeMillis() / 1000.0);
    long token = CurrentLease.get().orElseThrow().token();
    // A real job aggregates the day's data here; the row is its output, marked with who wrote it.
    db.sql("INSERT INTO nightly_report (tick, node, token) VALUES (?, ?, ?)")
        .params(tick, node, token)
        .update();
    events.publishEvent(new ReportWritten(tick, node, token));
  }

  /** Published after each report, for whoever sends it on (and for the test). */
  public record ReportWritten(long tick, String node, long token) {}
}

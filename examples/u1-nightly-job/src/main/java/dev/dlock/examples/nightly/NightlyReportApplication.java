package dev.dlock.examples.nightly;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * U1: a report scheduled at 02:00 on every node of a cluster, written once. The lock lives in the
 * application's own PostgreSQL: with no {@code dlock.url}, the starter uses its only DataSource.
 */
@SpringBootApplication
@EnableScheduling
public class NightlyReportApplication {
  public static void main(String[] args) {
    SpringApplication.run(NightlyReportApplication.class, args);
  }
}

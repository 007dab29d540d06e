package dev.dlock.examples.redpacket;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * U3: a red packet each user may claim once. Users tap twice, retry, or reach two nodes; a lock
 * per user id lets one claim at a time check for an earlier payment and pay. The lock lives in the
 * same PostgreSQL as the payments (no {@code dlock.url}).
 */
@SpringBootApplication
public class RedPacketApplication {
  public static void main(String[] args) {
    SpringApplication.run(RedPacketApplication.class, args);
  }
}

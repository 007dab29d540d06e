package dev.dlock.spring;

import java.util.concurrent.CountDownLatch;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A node in a JVM of its own, for {@link ScheduledLockFaultsTest} to kill with SIGKILL: its job
 * starts, says so on stdout, and never ends. Arguments: the dlock URL and the lock name.
 */
public final class KilledNodeMain {
  private KilledNodeMain() {}

  public static void main(String[] args) {
    SpringApplication app = new SpringApplication(Node.class);
    app.setWebApplicationType(WebApplicationType.NONE);
    app.run("--dlock.url=" + args[0], "--test.lock=" + args[1], "--dlock.lease-time=1s",
        "--logging.level.root=warn");
  }

  @Configuration(proxyBeanMethods = false)
  @EnableScheduling
  @ImportAutoConfiguration({DlockAutoConfiguration.class, DlockAnnotationsAutoConfiguration.class})
  static class Node {
    @Bean
    Job job() {
      return new Job();
    }
  }

  static class Job {
    @Scheduled(cron = "* * * * * *")
    @ScheduledLock(name = "${test.lock}", lockAtMostFor = "PT2S")
    public void tick() throws InterruptedException {
      System.out.println("RUNNING " + System.currentTimeMillis());
      System.out.flush();
      new CountDownLatch(1).await();
    }
  }
}

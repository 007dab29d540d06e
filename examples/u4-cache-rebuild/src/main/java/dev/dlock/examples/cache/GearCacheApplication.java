package dev.dlock.examples.cache;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * U4: two consumers on two machines receive approvals for the same "gear" and each rebuilds the
 * gear's cache entry. Rebuilds that overlap can end in the wrong order, and the one that read less
 * overwrites the one that read more; a lock per gear, on Redis, makes them take turns.
 */
@SpringBootApplication
public class GearCacheApplication {
  public static void main(String[] args) {
    SpringApplication.run(GearCacheApplication.class, args);
  }
}

package dev.dlock.examples.flashsale;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * U2: a flash sale where buyers on several nodes take items of one SKU at once. A lock per SKU on
 * Redis lets one buyer at a time read and write the stock, and the lease's fencing token lets the
 * stock row refuse the late write of a buyer whose lease ran out.
 */
@SpringBootApplication
public class FlashSaleApplication {
  public static void main(String[] args) {
    SpringApplication.run(FlashSaleApplication.class, args);
  }
}

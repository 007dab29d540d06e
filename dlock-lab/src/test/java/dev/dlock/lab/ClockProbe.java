package dev.dlock.lab;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A JVM's clocks, as a child process tells them: for every line on stdin, one line on stdout with
 * {@code System.currentTimeMillis()}, {@code System.nanoTime()} and how long a 20 ms
 * {@code parkNanos} took, in nanoseconds. Why a process: libfaketime acts on a whole process from
 * its start.
 */
final class ClockProbe {
  private ClockProbe() {}

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    while (in.readLine() != null) {
      long wall = System.currentTimeMillis();
      long mono = System.nanoTime();
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
      long parked = System.nanoTime() - mono;
      System.out.println(wall + " " + mono + " " + parked);
      System.out.flush();
    }
  }
}

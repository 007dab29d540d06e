package dev.dlock.testkit;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Virtual threads for a suite compiled for Java 17, looked up reflectively. A JDK too old to have
 * them fails the test with what to do about it: skipping would let a build look green while the
 * case never ran.
 */
final class VirtualThreads {
  static final int REQUIRED_FEATURE = 21;

  private VirtualThreads() {}

  static String tooOldMessage() {
    return String.format("the virtual-thread conformance tests need a JDK %d or newer, but run on"
        + " Java %s (java.home=%s). Point the 'virtual-threads' test execution at a newer JDK with"
        + " -Dvt.jvm=/path/to/jdk-%d-or-newer/bin/java.", REQUIRED_FEATURE,
        Runtime.version(), System.getProperty("java.home"), REQUIRED_FEATURE);
  }

  /** {@code Executors.newVirtualThreadPerTaskExecutor()}, or an AssertionError on an old JDK. */
  static ExecutorService newPerTaskExecutor() {
    if (Runtime.version().feature() < REQUIRED_FEATURE) {
      throw new AssertionError(tooOldMessage());
    }
    try {
      return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor")
          .invoke(null);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(tooOldMessage(), e);
    }
  }

  /** {@code Thread.isVirtual()}; false on a JDK without virtual threads. */
  static boolean isVirtual(Thread thread) {
    try {
      return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
    } catch (ReflectiveOperationException e) {
      return false;
    }
  }
}

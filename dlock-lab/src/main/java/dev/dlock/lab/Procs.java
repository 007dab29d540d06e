package dev.dlock.lab;

import dev.dlock.testkit.FreePorts;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * What every lab server does with its processes: a free loopback port, a readiness poll with a
 * deadline that fails with the server's log tail, a kill of a whole process tree, and a data
 * directory's creation and recursive delete.
 *
 * <p>Why one helper: the three servers differ in how they start and answer, not in how they are
 * waited for, paused, killed and cleaned up; keeping that here keeps the servers short.
 */
final class Procs {
  /** How long a server may take to answer after it was started. */
  static final Duration START_DEADLINE = Duration.ofSeconds(30);

  private Procs() {}

  /** A port nobody listens on at the moment, below the ephemeral range ({@link FreePorts}). */
  static int freePort() {
    return FreePorts.next();
  }

  /** Whether something accepts connections on 127.0.0.1:{@code port}. */
  static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Sends {@code request} to 127.0.0.1:{@code port} and returns all it answers until it closes or
   * 500 ms pass without a byte; "" when nothing listens.
   */
  static String ask(int port, String request, boolean untilClosed) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
      s.setSoTimeout(500);
      s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      StringBuilder answer = new StringBuilder();
      byte[] buf = new byte[4096];
      int n;
      while ((n = s.getInputStream().read(buf)) > 0) {
        answer.append(new String(buf, 0, n, StandardCharsets.US_ASCII));
        if (!untilClosed && answer.indexOf("\n") >= 0) {
          break;
        }
      }
      return answer.toString();
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * Polls {@code ready} every 20 ms until it holds; fails at once if {@code process} exits, and
   * after {@link #START_DEADLINE} otherwise, naming {@code what}, the port and the log's tail.
   */
  static void awaitReady(String what, int port, Path log, ProcessHandle process, BooleanSupplier ready) {
    long deadline = System.nanoTime() + START_DEADLINE.toNanos();
    while (!ready.getAsBoolean()) {
      if (!process.isAlive()) {
        throw new IllegalStateException(what + " on port " + port + " exited before it answered; the end of its log "
            + log + ":\n" + tail(log));
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(what + " on port " + port + " did not answer within " + START_DEADLINE
            + "; the end of its log " + log + ":\n" + tail(log));
      }
      sleep(20);
    }
  }

  /** Waits up to 10 s until nothing listens on {@code port} any more, as after a kill. */
  static void awaitClosed(String what, int port) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (listening(port)) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(what + " still listens on port " + port + " 10 s after kill -9");
      }
      sleep(20);
    }
  }

  /** The last 3000 characters of {@code log}, or why it cannot be read. */
  static String tail(Path log) {
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
      long from = Math.max(0, f.length() - 3000);
      byte[] bytes = new byte[(int) (f.length() - from)];
      f.seek(from);
      f.readFully(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(cannot read " + log + ": " + e + ")";
    }
  }

  /**
   * Stops {@code pid} first, so it starts no new children, then each of its descendants.
   *
   * @return every pid stopped, for {@link #resumeAll}
   */
  static List<Long> pauseTree(long pid) {
    List<Long> stopped = new ArrayList<>();
    Faults.stop(pid);
    stopped.add(pid);
    ProcessHandle.of(pid).ifPresent(h -> h.descendants().forEach(d -> {
      try {
        Faults.stop(d.pid());
        stopped.add(d.pid());
      } catch (IllegalStateException gone) {
        // a child that ended between the listing and the signal has nothing left to pause
      }
    }));
    return stopped;
  }

  /** Sends SIGCONT to each of {@code pids} still alive, the descendants before their parent. */
  static void resumeAll(List<Long> pids) {
    for (int i = pids.size() - 1; i >= 0; i--) {
      long pid = pids.get(i);
      if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
        Faults.cont(pid);
      }
    }
  }

  /** SIGKILL to {@code pid} and every descendant, stopped or not; no-op for a process gone. */
  static void killTree(long pid) {
    ProcessHandle.of(pid).ifPresent(h -> {
      List<ProcessHandle> descendants = h.descendants().toList();
      h.destroyForcibly();
      descendants.forEach(ProcessHandle::destroyForcibly);
    });
  }

  /**
   * Whether {@code pid} has ended: gone, or a zombie. A postmaster is not the lab's child, and
   * where PID 1 reaps nothing (some containers) a killed one stays a zombie.
   */
  static boolean ended(long pid) {
    if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      return true;
    }
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
    } catch (IOException | RuntimeException e) {
      return true; // no /proc entry: gone meanwhile
    }
  }

  /** Creates {@code baseDir} if need be and a new directory in it whose name starts with {@code prefix}. */
  static Path createDir(Path baseDir, String prefix) {
    try {
      Files.createDirectories(baseDir);
      return Files.createTempDirectory(baseDir, prefix);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a data directory under " + baseDir + ": " + e, e);
    }
  }

  /** Deletes {@code dir} and everything in it; a missing directory is fine. */
  static void deleteTree(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          Files.deleteIfExists(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
          Files.deleteIfExists(d);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (NoSuchFileException gone) {
      // deleted meanwhile
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir + ": " + e, e);
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a lab server", e);
    }
  }
}

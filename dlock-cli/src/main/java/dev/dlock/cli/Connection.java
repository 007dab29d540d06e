package dev.dlock.cli;

import dev.dlock.BackendUnavailableException;
import dev.dlock.LockClient;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * Opens the client for a command. With no --url, an embedded H2 file database in the user's home
 * directory, shared by every dlock process on the machine through H2's auto-server on loopback, so
 * processes coordinate with no server. Two processes opening that file at the same instant can
 * collide (H2 errors 90020 and 8000, "lock file recently modified"), so processes take turns to
 * open it, under an OS file lock, and each still retries, up to a first query on the pool's own
 * connection, for up to 20 s (a database that its last owner has just closed can refuse a while).
 */
final class Connection {
  private static final Duration OPEN_PATIENCE = Duration.ofSeconds(20);
  private static final String WARM_UP = "dlock-cli-warm-up";

  private Connection() {}

  static String defaultUrl() {
    Path dir = Path.of(System.getProperty("user.home"), ".dlock");
    return "jdbc:h2:file:" + dir.resolve("locks").toAbsolutePath()
        + ";AUTO_SERVER=TRUE;AUTO_RECONNECT=TRUE";
  }

  static LockClient open(String url, Duration leaseTime) {
    if (url != null) {
      return build(url, leaseTime);
    }
    System.setProperty("h2.bindAddress", "127.0.0.1");
    Path dir = Path.of(System.getProperty("user.home"), ".dlock");
    // One process at a time opens the file: the first becomes H2's server, and the next ones find
    // it and connect to it, instead of all racing for H2's lock file. The OS drops this lock when a
    // process dies, so unlike H2's lock file it is never stale.
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new BackendUnavailableException("cannot create ~/.dlock for the default lock database: " + e, e);
    }
    try (FileChannel channel = FileChannel.open(dir.resolve("open.lock"),
            StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock turn = channel.lock()) {
      return openInTurn(leaseTime);
    } catch (IOException e) {
      throw new BackendUnavailableException("cannot take ~/.dlock/open.lock to open the default lock"
          + " database: " + e, e);
    }
  }

  private static LockClient openInTurn(Duration leaseTime) {
    BackendUnavailableException last = null;
    long deadline = System.nanoTime() + OPEN_PATIENCE.toNanos();
    for (int attempt = 1; attempt == 1 || System.nanoTime() - deadline < 0; attempt++) {
      LockClient client = null;
      try {
        client = build(defaultUrl(), leaseTime);
        // The pool opens its connections after the client is built; one query makes sure a
        // connection of its own is open before the command's lock is asked for.
        client.inspect(WARM_UP);
        return client;
      } catch (BackendUnavailableException e) {
        if (client != null) {
          client.close();
        }
        last = e;
        pause(attempt);
      }
    }
    throw last;
  }

  private static LockClient build(String url, Duration leaseTime) {
    var builder = LockClient.builder().url(url).clientName("dlock-cli");
    if (leaseTime != null) {
      builder.leaseTime(leaseTime);
    }
    return builder.build();
  }

  private static void pause(int attempt) {
    try {
      Thread.sleep(Math.min(500L, 50L * attempt) + (long) (Math.random() * 50));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BackendUnavailableException("interrupted while opening the default lock database", e);
    }
  }
}

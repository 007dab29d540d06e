package dev.dlock.redis;

import dev.dlock.spi.LockKind;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import java.nio.charset.StandardCharsets;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * Reads this client's own channel. Why a channel per client rather than per lock: a release
 * publishes to the one client whose waiter it chose, so other clients never wake for it. A grant
 * message is the owner's sequence number, the token the release granted it, and the lock name,
 * separated by spaces; the owner is this client's id, ':' and that number. A letter before the
 * number names the kind of a grant other than exclusive ('f' fair, 'r' read, 'w' write, 'p' a
 * permit), so that a grant nobody here takes is passed on by its own script. A '*' before the
 * number marks a wake-up that carries no grant: the number, a space and the name.
 */
final class Inbox extends RedisPubSubAdapter<byte[], byte[]> {
  private final String clientId;
  /** Takes the grant a release pushed to one of this client's owners. */
  interface Pushed {
    void accept(LockKind kind, String name, String owner, long token);
  }

  private final Pushed pushed;
  private final BiConsumer<String, String> woken;

  /**
   * {@code pushed} gets the kind, the lock name, the owner and the token of a grant a release made;
   * {@code woken} the name and the owner a release without a grant may now grant.
   */
  Inbox(String clientId, Pushed pushed, BiConsumer<String, String> woken) {
    this.clientId = clientId;
    this.pushed = pushed;
    this.woken = woken;
  }

  @Override
  public void message(byte[] channel, byte[] message) {
    message(message, name -> true);
  }

  /**
   * Reads a message, if {@code accepted} takes the lock name it is about: on a cluster, only the
   * copy that the node serving the lock's slot delivers is read.
   */
  void message(byte[] message, Predicate<String> accepted) {
    LockKind kind = message.length > 0 ? kindOf(message[0]) : LockKind.EXCLUSIVE;
    int from = kind != LockKind.EXCLUSIVE || message.length > 0 && message[0] == '*' ? 1 : 0;
    int space = nextSpace(message, from);
    if (space == from || space == message.length) {
      return; // not one of dlock's messages
    }
    String owner = clientId + ':' + new String(message, from, space - from, StandardCharsets.US_ASCII);
    if (message[0] == '*') {
      String name = text(message, space + 1);
      if (accepted.test(name)) {
        woken.accept(name, owner);
      }
      return;
    }
    int second = nextSpace(message, space + 1);
    if (second == message.length) {
      return;
    }
    long token;
    try {
      token = Long.parseLong(new String(message, space + 1, second - space - 1, StandardCharsets.US_ASCII));
    } catch (NumberFormatException e) {
      return;
    }
    String name = text(message, second + 1);
    if (accepted.test(name)) {
      pushed.accept(kind, name, owner, token);
    }
  }

  private static LockKind kindOf(byte first) {
    return switch (first) {
      case 'f' -> LockKind.FAIR;
      case 'r' -> LockKind.READ;
      case 'w' -> LockKind.WRITE;
      case 'p' -> LockKind.PERMIT;
      default -> LockKind.EXCLUSIVE;
    };
  }

  private static int nextSpace(byte[] message, int from) {
    int i = from;
    while (i < message.length && message[i] != ' ') {
      i++;
    }
    return i;
  }

  private static String text(byte[] message, int from) {
    return new String(message, from, message.length - from, StandardCharsets.UTF_8);
  }
}

package dev.dlock.redis;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import java.nio.charset.StandardCharsets;
import java.util.function.BiConsumer;

/**
 * Reads this client's own channel. Why a channel per client rather than per lock: a release
 * publishes to the one client whose waiter it chose, so other clients never wake for it. The
 * message is the owner's sequence number, a space and the lock name; the owner is this client's id,
 * ':' and that number. A '*' before the number marks a wake-up for a fair, read-write or semaphore
 * waiter, which reserves nothing.
 */
final class Inbox extends RedisPubSubAdapter<byte[], byte[]> {
  private final String clientId;
  private final BiConsumer<String, String> reserved;
  private final BiConsumer<String, String> woken;

  /**
   * {@code reserved} gets the lock name and the owner an exclusive lock was reserved for;
   * {@code woken} the name and the owner a release of another kind may now grant.
   */
  Inbox(String clientId, BiConsumer<String, String> reserved, BiConsumer<String, String> woken) {
    this.clientId = clientId;
    this.reserved = reserved;
    this.woken = woken;
  }

  @Override
  public void message(byte[] channel, byte[] message) {
    int from = message.length > 0 && message[0] == '*' ? 1 : 0;
    int space = from;
    while (space < message.length && message[space] != ' ') {
      space++;
    }
    if (space == from || space == message.length) {
      return;
    }
    String seq = new String(message, from, space - from, StandardCharsets.US_ASCII);
    String name = new String(message, space + 1, message.length - space - 1, StandardCharsets.UTF_8);
    (from == 1 ? woken : reserved).accept(name, clientId + ':' + seq);
  }
}

package dev.dlock.redis;

import dev.dlock.internal.LastName;
import dev.dlock.spi.Grant;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.SlotHash;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * The key and channel names under one prefix. Why the escaping: Redis Cluster hashes only the
 * part of a key between its first '{' and the next '}', or the whole key when that part is empty.
 * Each lock's keys are {@code prefix{name}:suffix}; the prefix has no braces, so the first '{' is
 * ours, and escaping '}' (and the escape byte '%') in the name makes the tag exactly the escaped
 * name: never empty, never cut short, the same for every key of the lock. Names are UTF-8 bytes,
 * so any name, braces and all, maps to one slot. Why per-slot channels: sharded pub/sub (Redis 7
 * Cluster) binds a channel to a slot, and a script may publish only in its own keys' slot; so on
 * such a cluster a client listens on one channel per slot it waits in, {@code prefix{tag}client:id},
 * where the tag is a short string chosen to hash to that slot.
 */
final class Keys {
  static final String LOCK = ":lock";
  private static final byte[] PUBLISH = utf8("PUBLISH");
  private static final byte[] SPUBLISH = utf8("SPUBLISH");
  // The suffixes of each kind's keys, in the order its scripts take them.
  private static final byte[][] EXCLUSIVE = ascii(LOCK, ":token", ":queue", ":alive", ":leases");
  private static final byte[][] FAIR =
      ascii(":fair:owner", ":fair:token", ":fair:queue", ":fair:alive", ":fair:leases");
  private static final byte[][] READ_WRITE =
      ascii(":rw:write", ":rw:readers", ":rw:token", ":rw:queue", ":rw:alive", ":rw:writers", ":rw:leases");
  private static final byte[][] SEMAPHORE =
      ascii(":sem:holders", ":sem:meta", ":sem:queue", ":sem:alive", ":sem:leases");

  private final String prefixText;
  private final byte[] prefix;
  private final byte[] channels;
  private final boolean sharded;
  // The last exclusive lock's keys, which the acquire and the release both need.
  private final LastName<byte[][]> exclusive = new LastName<>(name -> keys(name, EXCLUSIVE));

  Keys(String prefix) {
    this(prefix, false);
  }

  /** With {@code sharded}, every lock's notifications go to channels of the lock's own slot. */
  Keys(String prefix, boolean sharded) {
    this.prefixText = prefix;
    this.prefix = utf8(prefix);
    this.channels = utf8(prefix + "client:");
    this.sharded = sharded;
  }

  /**
   * The lock, token, queue, alive and waiters' leases keys of a name, in the order the scripts
   * expect. The arrays may be shared: nobody writes into them.
   */
  byte[][] of(String name) {
    return exclusive.get(name);
  }

  /** The fair lock's owner, token, queue, alive and leases keys, in the order the fair scripts expect. */
  byte[][] fair(String name) {
    return keys(name, FAIR);
  }

  /** The read-write lock's write, readers, token, queue, alive, writers and leases keys. */
  byte[][] readWrite(String name) {
    return keys(name, READ_WRITE);
  }

  /** The semaphore's holders, meta (permits and token), queue, alive and leases keys. */
  byte[][] semaphore(String name) {
    return keys(name, SEMAPHORE);
  }

  // Each key is the prefix and tag, written once, then a suffix: one copy a key. Why so plain: the
  // keys are built on every call, twice a lock+unlock, and building them through streams and
  // concatenations was a tenth of the client's work in an uncontended cycle.
  private byte[][] keys(String name, byte[][] suffixes) {
    byte[] head = head(name);
    byte[][] out = new byte[suffixes.length][];
    for (int i = 0; i < suffixes.length; i++) {
      out[i] = concat(head, suffixes[i]);
    }
    return out;
  }

  byte[] lock(String name) {
    return concat(head(name), EXCLUSIVE[0]);
  }

  /** The lock keys of exclusive {@code grants}, in order, as renew.lua takes them. */
  byte[][] locks(List<Grant> grants) {
    byte[][] locks = new byte[grants.size()][];
    for (int i = 0; i < grants.size(); i++) {
      locks[i] = lock(grants.get(i).name());
    }
    return locks;
  }

  /**
   * The prefix of the notification channels of {@code name}'s clients; a client id follows it. The
   * array may be shared: nobody writes into it.
   */
  byte[] channels(String name) {
    return sharded ? shardChannels(SlotHash.getSlot(lock(name))) : channels;
  }

  /** The command that publishes to those channels. */
  byte[] publish() {
    return sharded ? SPUBLISH : PUBLISH;
  }

  boolean sharded() {
    return sharded;
  }

  /** A client's one channel, without sharded pub/sub. */
  byte[] channel(String clientId) {
    return concat(channels, utf8(clientId));
  }

  /** A client's channel for {@code name}: with sharded pub/sub, its one for the name's slot. */
  byte[] channel(String name, String clientId) {
    return concat(channels(name), utf8(clientId));
  }

  private byte[] shardChannels(int slot) {
    return utf8(prefixText + "{" + SlotTags.BY_SLOT[slot] + "}client:");
  }

  /** For each slot, a short tag that hashes to it: found once, in a few milliseconds. */
  private static final class SlotTags {
    static final String[] BY_SLOT = find();

    private static String[] find() {
      String[] tags = new String[SlotHash.SLOT_COUNT];
      int found = 0;
      for (int i = 0; found < tags.length; i++) {
        String tag = Integer.toString(i, 36);
        int slot = SlotHash.getSlot(utf8(tag));
        if (tags[slot] == null) {
          tags[slot] = tag;
          found++;
        }
      }
      return tags;
    }
  }

  /** A SCAN pattern for every lock key under the prefix. */
  byte[] lockPattern() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte b : prefix) {
      if (b == '*' || b == '?' || b == '[' || b == ']' || b == '\\') {
        out.write('\\');
      }
      out.write(b);
    }
    out.writeBytes(utf8("{*}" + LOCK));
    return out.toByteArray();
  }

  /**
   * Adds the name of every lock key a SCAN finds to {@code names}. {@code scan} runs one SCAN
   * page and waits for it: from the cursor given, or from the start for null. The next page
   * starts from the cursor the last one returned, which on a cluster also knows its node.
   */
  void scanNames(BiFunction<@Nullable ScanCursor, ScanArgs, KeyScanCursor<byte[]>> scan,
      Collection<String> names) {
    ScanArgs args = ScanArgs.Builder.matches(lockPattern()).limit(500);
    KeyScanCursor<byte[]> cursor = scan.apply(null, args);
    while (true) {
      for (byte[] key : cursor.getKeys()) {
        String name = nameOf(key);
        if (name != null) {
          names.add(name);
        }
      }
      if (cursor.isFinished()) {
        return;
      }
      cursor = scan.apply(cursor, args);
    }
  }

  /** The lock name of a lock key found by SCAN, or null for a key that is not one. */
  @Nullable String nameOf(byte[] lockKey) {
    byte[] suffix = utf8("}" + LOCK);
    int from = prefix.length + 1;
    int to = lockKey.length - suffix.length;
    if (to <= from || lockKey[prefix.length] != '{') {
      return null;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = from; i < to; i++) {
      byte b = lockKey[i];
      if (b == '}') {
        return null;
      }
      if (b == '%' && i + 2 < to) {
        out.write(Integer.parseInt(new String(lockKey, i + 1, 2, StandardCharsets.US_ASCII), 16));
        i += 2;
      } else {
        out.write(b);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** The prefix and the name's tag: {@code prefix{escaped name}}. */
  private byte[] head(String name) {
    byte[] raw = utf8(name);
    int escapes = 0;
    for (byte b : raw) {
      if (b == '}' || b == '%') {
        escapes++;
      }
    }
    byte[] out = new byte[prefix.length + raw.length + 2 * escapes + 2];
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    int at = prefix.length;
    out[at++] = '{';
    for (byte b : raw) {
      if (b == '}' || b == '%') {
        out[at++] = '%';
        out[at++] = b == '}' ? (byte) '7' : (byte) '2';
        out[at++] = b == '}' ? (byte) 'D' : (byte) '5';
      } else {
        out[at++] = b;
      }
    }
    out[at] = '}';
    return out;
  }

  private static byte[][] ascii(String... suffixes) {
    byte[][] out = new byte[suffixes.length][];
    for (int i = 0; i < suffixes.length; i++) {
      out[i] = suffixes[i].getBytes(StandardCharsets.US_ASCII);
    }
    return out;
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}

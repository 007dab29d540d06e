package dev.dlock.zookeeper;

import dev.dlock.internal.LastName;
import dev.dlock.spi.LockKind;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Paths and node names. An exclusive lock {@code name} lives in {@code <chroot>/dlock/locks/<name>},
 * a fair one in {@code .../fair/<name>}, a read-write one in {@code .../rw/<name>} and a semaphore
 * in {@code .../sem/<name>}. Each contender's node is {@code <owner>-<10-digit sequence>}; in a
 * read-write directory the side comes first: {@code R-}, {@code W-}, or {@code D<writer's
 * sequence>-} for a reader downgraded from a writer, which ranks right behind that writer. Why the owner is in the node name: a
 * create whose reply was lost can be found again by listing the children, instead of leaking a
 * node that would block the lock until the session ends. Names and owners are percent-encoded
 * (dots too), so any string is one legal path component.
 */
final class Nodes {
  private static final int SEQ_DIGITS = 10;

  private final String root;
  private final String base;
  // The last exclusive lock's directory, which every new contender needs.
  private final LastName<String> lastDir;

  Nodes(String chroot) {
    this.root = chroot + "/dlock";
    this.base = root + "/locks";
    String baseSlash = base + "/";
    this.lastDir = new LastName<>(name -> encode(baseSlash, name, ""));
  }

  /** The directory of one name for a kind: read and write share one, each other kind has its own. */
  String dir(LockKind kind, String name) {
    String sub = switch (kind) {
      case EXCLUSIVE -> "locks";
      case FAIR -> "fair";
      case READ, WRITE -> "rw";
      case PERMIT -> "sem";
    };
    return encode(root + "/" + sub + "/", name, "");
  }

  /** The parent of every lock directory. */
  String base() {
    return base;
  }

  /** The directory of one lock name: a container node. */
  String dir(String name) {
    return lastDir.get(name);
  }

  /** The name a lock directory stands for. */
  static String nameOf(String dirChild) {
    return decode(dirChild);
  }

  /** The path prefix given to a sequential create; ZooKeeper appends the sequence. */
  static String prefix(String owner) {
    return encode("", owner, "-");
  }

  /** The prefix of a read-write node: its side ({@code R}, {@code W} or {@code D<seq>}) first. */
  static String prefix(String side, String owner) {
    return encode(side + "-", owner, "-");
  }

  /** The side of a read-write node: {@code R}, {@code W} or {@code D<seq>}. */
  static String side(String child) {
    int dash = child.indexOf('-');
    return dash < 0 ? "" : child.substring(0, dash);
  }

  /** The owner of a read-write node. */
  static @Nullable String rwOwnerOf(String child) {
    return ownerOf(child.substring(child.indexOf('-') + 1));
  }

  /** The 10-digit sequence ZooKeeper gave a node. */
  static String seq(String child) {
    return child.substring(child.length() - SEQ_DIGITS);
  }

  /**
   * The read-write nodes among {@code children} in queue order: by sequence, except that a
   * downgraded reader ranks right behind the writer it came from.
   */
  static List<String> rwQueue(List<String> children) {
    List<String> q = new ArrayList<>(children.size());
    for (String c : children) {
      String side = side(c);
      if (isContender(c) && (side.equals("R") || side.equals("W") || side.startsWith("D"))) {
        q.add(c);
      }
    }
    q.sort(Comparator.comparing(Nodes::rank));
    return q;
  }

  private static String rank(String child) {
    String side = side(child);
    return side.startsWith("D") ? side.substring(1) + "1" + seq(child) : seq(child) + "0" + seq(child);
  }

  /** The owner a contender's node belongs to, or null for a foreign child. */
  static @Nullable String ownerOf(String child) {
    return isContender(child) ? decode(child.substring(0, child.length() - SEQ_DIGITS - 1)) : null;
  }

  static boolean isContender(String child) {
    int n = child.length();
    if (n < SEQ_DIGITS + 2 || child.charAt(n - SEQ_DIGITS - 1) != '-') {
      return false;
    }
    for (int i = n - SEQ_DIGITS; i < n; i++) {
      if (!Character.isDigit(child.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** The contender nodes among {@code children}, in queue order (by sequence). */
  static List<String> queue(List<String> children) {
    List<String> q = new ArrayList<>(children.size());
    for (String c : children) {
      if (isContender(c)) {
        q.add(c);
      }
    }
    q.sort(Comparator.comparing(c -> c.substring(c.length() - SEQ_DIGITS)));
    return q;
  }

  /** The node made with {@code prefix} among {@code children}, or null. */
  static @Nullable String find(List<String> children, String p) {
    for (String c : children) {
      if (c.startsWith(p) && c.length() == p.length() + SEQ_DIGITS && isContender(c)) {
        return c;
      }
    }
    return null;
  }

  static String child(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /**
   * {@code s} in form encoding, as {@link URLEncoder} does it, with {@code .} and {@code *} escaped
   * as well, between {@code before} and {@code after}. Written out, and joined in one builder,
   * because it runs on every new contender, and the usual owner id needs only its {@code :} escaped.
   */
  private static String encode(String before, String s, String after) {
    StringBuilder out = null;
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      boolean plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')
          || ch == '-' || ch == '_';
      if (plain && out == null) {
        continue;
      }
      if (out == null) {
        out = new StringBuilder(before.length() + s.length() + after.length() + 8)
            .append(before).append(s, 0, i);
      }
      if (plain) {
        out.append(ch);
      } else if (ch == ' ') {
        out.append('+');
      } else if (ch < 0x80) {
        appendHex(out, ch);
      } else {
        boolean pair = Character.isHighSurrogate(ch) && i + 1 < s.length()
            && Character.isLowSurrogate(s.charAt(i + 1));
        int end = pair ? i + 2 : i + 1;
        for (byte b : s.substring(i, end).getBytes(StandardCharsets.UTF_8)) {
          appendHex(out, b & 0xff);
        }
        i = end - 1;
      }
    }
    if (out != null) {
      return out.append(after).toString();
    }
    return (before.isEmpty() ? s : before.concat(s)).concat(after); // concat of "" is no copy
  }

  private static void appendHex(StringBuilder out, int b) {
    out.append('%').append(Character.toUpperCase(Character.forDigit(b >> 4, 16)))
        .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }
}

package dev.dlock.zookeeper;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Paths and node names. A lock {@code name} lives in {@code <chroot>/dlock/locks/<name>}, and each
 * contender's node is {@code <owner>-<10-digit sequence>}. Why the owner is in the node name: a
 * create whose reply was lost can be found again by listing the children, instead of leaking a
 * node that would block the lock until the session ends. Names and owners are percent-encoded
 * (dots too), so any string is one legal path component.
 */
final class Nodes {
  private static final int SEQ_DIGITS = 10;

  private final String base;

  Nodes(String chroot) {
    this.base = chroot + "/dlock/locks";
  }

  /** The parent of every lock directory. */
  String base() {
    return base;
  }

  /** The directory of one lock name: a container node. */
  String dir(String name) {
    return base + "/" + encode(name);
  }

  /** The name a lock directory stands for. */
  static String nameOf(String dirChild) {
    return decode(dirChild);
  }

  /** The path prefix given to a sequential create; ZooKeeper appends the sequence. */
  static String prefix(String owner) {
    return encode(owner) + "-";
  }

  /** The owner a contender's node belongs to, or null for a foreign child. */
  static String ownerOf(String child) {
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

  /** The node of {@code owner} among {@code children}, or null. */
  static String find(List<String> children, String owner) {
    String p = prefix(owner);
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

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace(".", "%2E").replace("*", "%2A");
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }
}

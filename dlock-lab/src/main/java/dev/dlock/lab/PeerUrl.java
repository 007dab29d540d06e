package dev.dlock.lab;

import dev.dlock.internal.Urls;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lab URL of a peer's backend, split into what the peer libraries are configured with:
 * {@code redis://[[user]:password@]host[:port][/database]}, {@code zookeeper://[user:password@]host:port[,host:port...][/chroot]}
 * and {@code jdbc:postgresql:...}. A query is dlock's (its {@code sessionTimeout}, say) and left
 * alone: the peers take their lease from the lab, not from the URL.
 *
 * <p>Why one helper: the same URL (the lab's server, or the user's own given with {@code --url})
 * serves dlock and every peer on that backend, so it is read one way, and every rejection names the
 * URL with its password hidden ({@link Urls#redact}).
 */
final class PeerUrl {
  private static final Pattern HOST_PORT = Pattern.compile("([A-Za-z0-9.\\-]+|\\[[0-9A-Fa-f:.]+\\])(?::(\\d{1,5}))?");

  private PeerUrl() {}

  /**
   * A Redis server.
   *
   * @param host     the host name or address ({@code [..]} for IPv6)
   * @param port     the port, 6379 when the URL has none
   * @param user     the ACL user, or null
   * @param password the password, or null
   * @param database the database number, 0 when the URL has none
   */
  record Redis(String host, int port, String user, String password, int database) {
    /** {@code redis://host:port}, without credentials: Redisson's address. */
    String address() {
      return "redis://" + host + ":" + port;
    }

    @Override
    public String toString() {
      return "Redis[" + address() + "/" + database + (password == null ? "" : ", password ***") + "]";
    }
  }

  /**
   * A ZooKeeper ensemble.
   *
   * @param connect  the connect string, chroot included, as Curator takes it
   * @param user     the digest user, or null
   * @param password the digest password, or null
   */
  record Zk(String connect, String user, String password) {
    @Override
    public String toString() {
      return "Zk[" + connect + (user == null ? "" : ", user " + user + ", password ***") + "]";
    }
  }

  /** Reads a {@code redis://} URL. */
  static Redis redis(String url) {
    String shown = Urls.redact(url);
    String rest = after(url, "redis://", shown);
    int at = rest.lastIndexOf('@');
    String user = null;
    String password = null;
    if (at >= 0) {
      Urls.Authority a = Urls.authority(rest.substring(0, at + 1), shown);
      // redis://secret@host is Lettuce's password-only form; redis://:secret@host the usual one.
      user = a.password() == null || a.user().isEmpty() ? null : a.user();
      password = a.password() == null ? a.user() : a.password();
      rest = rest.substring(at + 1);
    }
    int query = rest.indexOf('?');
    if (query >= 0) {
      rest = rest.substring(0, query);
    }
    int database = 0;
    int slash = rest.indexOf('/');
    if (slash >= 0) {
      String db = rest.substring(slash + 1);
      rest = rest.substring(0, slash);
      if (!db.isEmpty()) {
        if (!db.matches("\\d{1,4}")) {
          throw bad(shown, "the database must be a number, was '" + db + "'");
        }
        database = Integer.parseInt(db);
      }
    }
    Matcher m = HOST_PORT.matcher(rest);
    if (!m.matches()) {
      throw bad(shown, "expected host[:port] after the credentials, was '" + rest + "'");
    }
    return new Redis(m.group(1), port(m.group(2), 6379, shown), user, password, database);
  }

  /** Reads a {@code zookeeper://} URL. */
  static Zk zk(String url) {
    String shown = Urls.redact(url);
    String rest = after(url, "zookeeper://", shown);
    int at = rest.lastIndexOf('@');
    String user = null;
    String password = null;
    if (at >= 0) {
      Urls.Authority a = Urls.authority(rest.substring(0, at + 1), shown);
      if (a.user().isEmpty() || a.password() == null || a.password().isEmpty()) {
        throw bad(shown, "credentials must be 'user:password@'");
      }
      user = a.user();
      password = a.password();
      rest = rest.substring(at + 1);
    }
    int query = rest.indexOf('?');
    if (query >= 0) {
      rest = rest.substring(0, query);
    }
    int slash = rest.indexOf('/');
    String hosts = slash < 0 ? rest : rest.substring(0, slash);
    String chroot = slash < 0 ? "" : rest.substring(slash);
    if (chroot.equals("/")) {
      chroot = "";
    }
    if (hosts.isEmpty()) {
      throw bad(shown, "it names no host");
    }
    for (String host : hosts.split(",", -1)) {
      Matcher m = HOST_PORT.matcher(host);
      if (!m.matches()) {
        throw bad(shown, "expected host:port, was '" + host + "'");
      }
      port(m.group(2), 2181, shown);
    }
    if (chroot.endsWith("/") || chroot.contains("//")) {
      throw bad(shown, "the chroot must be a path like /a/b, was '" + chroot + "'");
    }
    return new Zk(hosts + chroot, user, password);
  }

  /** Checks a PostgreSQL JDBC URL and returns it as it is, for a connection pool. */
  static String jdbc(String url) {
    after(url, "jdbc:postgresql:", Urls.redact(url));
    return url;
  }

  private static String after(String url, String prefix, String shown) {
    if (url == null || !url.toLowerCase(Locale.ROOT).startsWith(prefix)) {
      throw bad(shown, "it must start with '" + prefix + "'");
    }
    return url.substring(prefix.length());
  }

  private static int port(String text, int otherwise, String shown) {
    if (text == null) {
      return otherwise;
    }
    int port = Integer.parseInt(text);
    if (port < 1 || port > 65535) {
      throw bad(shown, "the port must be 1..65535, was " + text);
    }
    return port;
  }

  private static IllegalArgumentException bad(String shown, String why) {
    return new IllegalArgumentException("bad backend URL for a peer scheme, " + shown + ": " + why);
  }
}

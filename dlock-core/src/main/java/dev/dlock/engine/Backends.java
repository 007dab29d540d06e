package dev.dlock.engine;

import dev.dlock.internal.Urls;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockBackendProvider;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.TreeSet;

/** Finds the backend for a URL's scheme through ServiceLoader, the way DriverManager finds drivers. */
public final class Backends {
  private Backends() {}

  public static LockBackend open(String url) {
    int colon = url.indexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException(
          "url must start with a scheme such as 'mem:' or 'redis://': '" + Urls.redact(url) + "'");
    }
    String scheme = url.substring(0, colon).toLowerCase(Locale.ROOT);
    TreeSet<String> known = new TreeSet<>();
    for (LockBackendProvider provider : ServiceLoader.load(LockBackendProvider.class, loader())) {
      if (provider.schemes().contains(scheme)) {
        return provider.open(url);
      }
      known.addAll(provider.schemes());
    }
    throw new IllegalArgumentException(String.format(
        "no dlock backend handles scheme '%s' of url '%s' (known: %s); add its module, such as dlock-%s,"
            + " to the classpath", scheme, Urls.redact(url), known, scheme));
  }

  private static ClassLoader loader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : Backends.class.getClassLoader();
  }
}

package dev.dlock.mem;

import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockBackendProvider;
import java.util.Set;
import java.util.regex.Pattern;

/** Opens {@code mem:} (the JVM's default in-memory server) and {@code mem:NAME} (a named one). */
public final class MemBackendProvider implements LockBackendProvider {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  @Override
  public Set<String> schemes() {
    return Set.of("mem");
  }

  @Override
  public LockBackend open(String url) {
    String rest = url.substring(url.indexOf(':') + 1);
    if (rest.startsWith("//")) {
      rest = rest.substring(2);
    }
    if (rest.isEmpty()) {
      return MemServer.named("default").newBackend();
    }
    if (!NAME.matcher(rest).matches()) {
      throw new IllegalArgumentException(
          "mem url must be 'mem:' or 'mem:NAME' with NAME of 1 to 64 letters, digits, '.', '_' or '-': '"
              + url + "'");
    }
    return MemServer.named(rest).newBackend();
  }
}

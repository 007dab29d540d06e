package dev.dlock.spi;

import java.util.regex.Pattern;

/** Helpers for backend URLs. */
public final class Urls {
  private static final Pattern USER_INFO = Pattern.compile("(//[^/@:]*:)[^/@]*@");
  private static final Pattern PASSWORD_PARAM =
      Pattern.compile("((?i:password|pass|pwd)=)[^&;]*");

  private Urls() {}

  /**
   * The URL with any password replaced by {@code ***}, in user info ({@code //user:pass@}) or in a
   * query parameter ({@code password=}), so it can appear in messages and logs.
   */
  public static String redact(String url) {
    if (url == null) {
      return "null";
    }
    String s = USER_INFO.matcher(url).replaceAll("$1***@");
    return PASSWORD_PARAM.matcher(s).replaceAll("$1***");
  }
}

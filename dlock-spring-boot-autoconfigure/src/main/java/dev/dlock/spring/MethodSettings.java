package dev.dlock.spring;

import dev.dlock.Lease;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.StringValueResolver;

/**
 * The checked attributes of one annotated method.
 *
 * <p>Why parse into records once, when the bean is post-processed: a bad duration, SpEL expression
 * or combination fails the application's start with the method and the value named, and a call
 * pays for none of it.
 */
final class MethodSettings {
  private static final SpelExpressionParser SPEL = new SpelExpressionParser();
  static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();
  private static final Pattern VARIABLE = Pattern.compile("#([A-Za-z_$][A-Za-z0-9_$]*)");
  private static final Pattern INDEXED = Pattern.compile("[pa][0-9]+|root|this");

  private final StringValueResolver values;
  private final Supplier<DlockProperties> properties;
  private final Map<Method, Object> parsed = new ConcurrentHashMap<>();

  /**
   * @param values     resolves {@code ${...}} placeholders
   * @param properties the defaults: {@code dlock.lease-time} and {@code dlock.wait}
   */
  MethodSettings(StringValueResolver values, Supplier<DlockProperties> properties) {
    this.values = values;
    this.properties = properties;
  }

  /** A {@link Scheduled} or a {@link Call}, or null for a method with neither annotation. */
  @Nullable Object of(Method method) {
    Object known = parsed.get(method);
    if (known != null) {
      return known;
    }
    ScheduledLock scheduled = AnnotatedElementUtils.findMergedAnnotation(method, ScheduledLock.class);
    DistributedLock locked = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
    if (scheduled != null && locked != null) {
      throw new IllegalStateException(describe(method)
          + " has both @ScheduledLock and @DistributedLock; keep one");
    }
    Object settings = scheduled != null
        ? scheduled(method, scheduled, values, properties.get().getLeaseTime())
        : locked != null ? call(method, locked, values, properties.get().getWait()) : null;
    if (settings != null) {
      parsed.putIfAbsent(method, settings);
    }
    return settings;
  }

  /**
   * A {@link ScheduledLock}: {@code fixedLease} is {@code lockAtMostFor} where it is no longer than
   * the client's lease, else null for the client's watchdog lease.
   */
  record Scheduled(String name, @Nullable Duration fixedLease, Duration atLeast, boolean interrupt) {}

  /** A {@link DistributedLock}; {@code lease} null means the watchdog lease. */
  record Call(String source, Expression name, Duration maxWait, @Nullable Duration lease,
      DistributedLock.Kind kind, DistributedLock.OnTimeout onTimeout, int leaseParameter,
      boolean returnsOptional, boolean throwsInterrupted) {}

  static Scheduled scheduled(Method method, ScheduledLock a, StringValueResolver values,
      Duration clientLease) {
    String where = "@ScheduledLock on " + describe(method);
    String name = values.resolveStringValue(a.name());
    if (name == null || name.isBlank()) {
      throw new IllegalStateException(where + " has a blank name: '" + a.name() + "'");
    }
    if (method.getParameterCount() != 0) {
      throw new IllegalStateException(where + " takes parameters; a scheduled method takes none");
    }
    Duration atMost = a.lockAtMostFor().isEmpty() ? null
        : duration(where, "lockAtMostFor", a.lockAtMostFor(), values);
    Duration atLeast = duration(where, "lockAtLeastFor", a.lockAtLeastFor(), values);
    if (atMost != null && atMost.isZero()) {
      throw new IllegalStateException(where + " has lockAtMostFor = " + atMost + "; it must be positive");
    }
    Duration bound = atMost != null ? atMost : clientLease;
    if (atLeast.compareTo(bound) > 0) {
      throw new IllegalStateException(where + " has lockAtLeastFor = " + atLeast
          + ", longer than lockAtMostFor = " + bound);
    }
    Duration fixed = atMost != null && atMost.compareTo(clientLease) <= 0 ? atMost : null;
    return new Scheduled(name, fixed, atLeast, a.interruptOnLoss());
  }

  static Call call(Method method, DistributedLock a, StringValueResolver values, Duration defaultWait) {
    String where = "@DistributedLock on " + describe(method);
    Expression name;
    try {
      name = SPEL.parseExpression(a.name());
    } catch (ParseException e) {
      throw new IllegalStateException(where + " has a name that is not SpEL: '" + a.name() + "'", e);
    }
    if (method.getParameterCount() > 0 && NAMES.getParameterNames(method) == null) {
      // Without them SpEL reads #gear as null, and every call would share the lock "gear:null".
      Matcher variable = VARIABLE.matcher(a.name());
      while (variable.find()) {
        if (!INDEXED.matcher(variable.group(1)).matches()) {
          throw new IllegalStateException(where + " names #" + variable.group(1) + " in '" + a.name()
              + "', but its class was compiled without parameter names: compile with -parameters"
              + " (Spring Boot's build plugins do), or write #p0, #p1, ...");
        }
      }
    }
    Duration wait = a.maxWait().isEmpty() ? defaultWait
        : duration(where, "maxWait", a.maxWait(), values);
    Duration lease = a.lease().isEmpty() ? null : duration(where, "lease", a.lease(), values);
    if (lease != null && a.kind() != DistributedLock.Kind.EXCLUSIVE) {
      throw new IllegalStateException(where + " sets lease = '" + a.lease() + "' on a "
          + a.kind() + " lock; read-write locks have the watchdog lease only");
    }
    if (lease != null && lease.isZero()) {
      throw new IllegalStateException(where + " has lease = " + lease + "; it must be positive");
    }
    Class<?> returns = method.getReturnType();
    if (a.onTimeout() == DistributedLock.OnTimeout.SKIP && returns.isPrimitive() && returns != void.class) {
      throw new IllegalStateException(where + " skips on timeout but returns " + returns
          + ", which cannot be null; return a wrapper or an Optional");
    }
    int leaseParameter = -1;
    Class<?>[] types = method.getParameterTypes();
    for (int i = 0; i < types.length; i++) {
      if (types[i] == Lease.class) {
        if (leaseParameter >= 0) {
          throw new IllegalStateException(where + " has two Lease parameters");
        }
        leaseParameter = i;
      }
    }
    boolean throwsInterrupted = false;
    for (Class<?> e : method.getExceptionTypes()) {
      throwsInterrupted |= e.isAssignableFrom(InterruptedException.class);
    }
    return new Call(where, name, wait, lease, a.kind(), a.onTimeout(), leaseParameter,
        returns == Optional.class, throwsInterrupted);
  }

  private static Duration duration(String where, String attribute, String text,
      StringValueResolver values) {
    String resolved = values.resolveStringValue(text);
    Duration d;
    try {
      d = DurationStyle.detectAndParse(java.util.Objects.requireNonNull(resolved, attribute));
    } catch (RuntimeException e) {
      throw new IllegalStateException(where + " has " + attribute + " = '" + text
          + "', which is not a duration such as PT30S or 30s", e);
    }
    if (d.isNegative()) {
      throw new IllegalStateException(where + " has " + attribute + " = '" + text + "' < 0");
    }
    return d;
  }

  static String describe(Method method) {
    return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()";
  }
}

package dev.dlock.spring;

import java.lang.reflect.Method;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;

/**
 * Sends a call of an annotated method to the runner of its annotation.
 *
 * <p>Why one interceptor for both annotations: a bean with both kinds of method gets one advisor
 * and one proxy, and the settings are looked up once per call.
 */
final class LockInterceptor implements MethodInterceptor {
  private final MethodSettings settings;
  private final ScheduledRuns scheduled;
  private final Calls calls;

  LockInterceptor(MethodSettings settings, ScheduledRuns scheduled, Calls calls) {
    this.settings = settings;
    this.scheduled = scheduled;
    this.calls = calls;
  }

  @Override
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    Object target = invocation.getThis();
    Method method = invocation.getMethod();
    if (target != null) {
      method = AopUtils.getMostSpecificMethod(method, AopUtils.getTargetClass(target));
    }
    method = BridgeMethodResolver.findBridgedMethod(method);
    Object s = settings.of(method);
    if (s instanceof MethodSettings.Scheduled run) {
      return scheduled.run(run, invocation);
    }
    if (s instanceof MethodSettings.Call call) {
      return calls.run(call, method, invocation);
    }
    return invocation.proceed();
  }
}

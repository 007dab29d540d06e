package dev.dlock.spring;

import dev.dlock.LockClient;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.aop.Pointcut;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Proxies the beans that have {@link ScheduledLock} or {@link DistributedLock} methods, after
 * checking every such method's attributes, so a bad one fails the application's start.
 *
 * <p>Why an advising post-processor, as Spring's {@code @Async} has, rather than an aspect: it
 * needs no AspectJ and no auto-proxy creator, and it runs before Spring's scheduling post-processor,
 * which then schedules the proxy, not the bare bean.
 */
final class LockAnnotationPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
    implements EnvironmentAware, DisposableBean {
  private static final List<Class<? extends Annotation>> ANNOTATIONS =
      List.of(ScheduledLock.class, DistributedLock.class);
  private Environment environment;
  private ConfigurableListableBeanFactory beans;
  private MethodSettings settings;
  private ScheduledRuns scheduled;

  @SuppressWarnings("NullAway.Init") // Spring sets the fields through its Aware callbacks first
  LockAnnotationPostProcessor() {
    setProxyTargetClass(true);
    setBeforeExistingAdvisors(true);
    setOrder(Ordered.LOWEST_PRECEDENCE - 10);
  }

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    super.setBeanFactory(beanFactory);
    beans = (ConfigurableListableBeanFactory) beanFactory;
    Supplier<LockClient> client = SingletonSupplier.of(() -> beans.getBean(LockClient.class));
    settings = new MethodSettings(beans::resolveEmbeddedValue, SingletonSupplier.of(
        () -> Binder.get(environment).bindOrCreate("dlock", DlockProperties.class)));
    scheduled = new ScheduledRuns(client, SingletonSupplier.of(
        () -> beans.getBeanProvider(ScheduledLockListener.class).orderedStream().toList()));
    Pointcut annotated = new ComposablePointcut(
        new AnnotationMatchingPointcut(null, ScheduledLock.class, true))
        .union(new AnnotationMatchingPointcut(null, DistributedLock.class, true));
    advisor = new DefaultPointcutAdvisor(annotated,
        new LockInterceptor(settings, scheduled, new Calls(client, beanFactory)));
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    Class<?> type = ClassUtils.getUserClass(bean);
    if (!AnnotationUtils.isCandidateClass(type, ANNOTATIONS)) {
      return super.postProcessAfterInitialization(bean, beanName);
    }
    for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type)) {
      if (settings.of(method) != null && beans.getBeanNamesForType(LockClient.class, true, false).length == 0) {
        throw new IllegalStateException(MethodSettings.describe(method) + " of bean '" + beanName
            + "' is locked, but the context has no LockClient: set dlock.url, or give it one DataSource");
      }
    }
    return super.postProcessAfterInitialization(bean, beanName);
  }

  @Override
  public void destroy() {
    scheduled.close();
  }
}

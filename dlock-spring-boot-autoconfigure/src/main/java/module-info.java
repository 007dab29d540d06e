/**
 * dlock's Spring Boot auto-configuration: the {@code LockClient} bean from {@code dlock.*}
 * properties, scheduled jobs once per cluster, annotated locks, the health indicator, metrics, the
 * actuator endpoint and Spring Integration's {@code LockRegistry}. Spring reads the configuration
 * classes by reflection, so both packages are open as well as exported. Spring's jars are automatic
 * modules (named in their manifests). Those whose types the exported classes show (annotations,
 * supertypes, parameters) are required transitively; the optional integrations are
 * {@code requires static}, as on the class path they are optional dependencies.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.dlock.spring {
  requires transitive dev.dlock.core;
  requires java.sql;
  requires org.slf4j;
  requires transitive spring.aop;
  requires transitive spring.beans;
  requires transitive spring.boot;
  requires transitive spring.boot.autoconfigure;
  requires transitive spring.context;
  requires transitive spring.core;
  requires transitive spring.expression;
  requires static transitive dev.dlock.jdbc;
  requires static transitive micrometer.core;
  requires static transitive spring.boot.actuator;
  requires static transitive spring.boot.actuator.autoconfigure;
  requires static transitive spring.boot.health;
  requires static transitive spring.integration.core;

  exports dev.dlock.spring;
  exports dev.dlock.spring.integration;
  opens dev.dlock.spring;
  opens dev.dlock.spring.integration;
}

/**
 * Spring Boot auto-configuration of dlock: a LockClient bean, {@code @ScheduledLock} and
 * {@code @DistributedLock}, its health, metrics and actuator endpoint, and a Spring Integration
 * LockRegistry.
 */
package dev.dlock.spring;

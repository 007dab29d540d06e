/**
 * Spring Boot auto-configuration of dlock: a LockClient bean, {@code @ScheduledLock} and
 * {@code @DistributedLock}, its health, metrics and actuator endpoint, and a Spring Integration
 * LockRegistry.
 */
@NullMarked
package dev.dlock.spring;

import org.jspecify.annotations.NullMarked;

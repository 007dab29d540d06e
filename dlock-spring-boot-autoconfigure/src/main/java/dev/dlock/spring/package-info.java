/**
 * Spring Boot auto-configuration of dlock: a LockClient bean, its health, its metrics and a Spring
 * Integration LockRegistry.
 */
package dev.dlock.spring;

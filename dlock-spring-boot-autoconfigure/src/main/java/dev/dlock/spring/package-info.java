/**
 * Spring Boot auto-configuration of dlock: a LockClient bean, its health, its metrics and its
 * actuator endpoint.
 */
package dev.dlock.spring;

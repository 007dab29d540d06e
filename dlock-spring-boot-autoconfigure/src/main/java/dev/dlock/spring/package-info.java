/** Spring Boot auto-configuration of dlock: a LockClient bean, its health and its metrics. */
package dev.dlock.spring;

/**
 * The in-JVM backend behind {@code mem:} URLs, for tests and single-JVM applications. It passes the
 * same conformance suite as the networked backends.
 */
@NullMarked
package dev.dlock.mem;

import org.jspecify.annotations.NullMarked;

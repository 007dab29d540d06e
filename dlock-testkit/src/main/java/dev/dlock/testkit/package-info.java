/**
 * The conformance suites a backend runs to show it keeps dlock's contract, and their tools (fault proxy, event recorder).
 */
@NullMarked
package dev.dlock.testkit;

import org.jspecify.annotations.NullMarked;

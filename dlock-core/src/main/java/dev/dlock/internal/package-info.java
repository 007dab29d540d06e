/**
 * Helpers of dlock's own backends (URL parsing and redaction, call timeouts, abandoning a client
 * whose process dies, the last name's derived keys): exported only to dlock's backend modules and its testkit, so they are not
 * part of the API a user or a third-party backend can rely on.
 */
@NullMarked
package dev.dlock.internal;

import org.jspecify.annotations.NullMarked;

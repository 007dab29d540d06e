/**
 * Not API: classes that must be public only because a driver instantiates them by name. They may
 * change or go in any release; do not use them directly.
 */
@NullMarked
package dev.dlock.jdbc.internal;

import org.jspecify.annotations.NullMarked;

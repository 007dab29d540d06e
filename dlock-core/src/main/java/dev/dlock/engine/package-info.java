/**
 * The engine behind every backend: reentrancy, the local wait queue, deadlines, renewal, loss and
 * hand-off. Its classes are public to each other where the API needs an entry point
 * ({@link dev.dlock.engine.Engine#start}), and hidden from users by the module, which does not
 * export this package.
 */
@NullMarked
package dev.dlock.engine;

import org.jspecify.annotations.NullMarked;

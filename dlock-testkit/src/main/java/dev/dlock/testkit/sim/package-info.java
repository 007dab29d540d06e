/**
 * The backend-neutral parts of a seeded simulation of a lock protocol: the step scheduler on a
 * virtual clock, the invariants every lock keeps (one holder, rising tokens, no stranded waiter),
 * and the run over many seeds with its failing-seed report. A backend's test keeps its own model
 * of the server and the client.
 */
@NullMarked
package dev.dlock.testkit.sim;

import org.jspecify.annotations.NullMarked;

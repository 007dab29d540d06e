/**
 * The conformance suites a backend's tests extend, and the scaffolding of its seeded simulations.
 * JUnit and AssertJ are part of its API, since a backend's test classes inherit the suites' test
 * methods and assertions.
 */
module dev.dlock.testkit {
  requires transitive dev.dlock.core;
  requires transitive org.junit.jupiter.api;
  requires transitive org.assertj.core;
  requires transitive java.sql;

  exports dev.dlock.testkit;
  exports dev.dlock.testkit.sim;
}

package dev.dlock.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresOptimisticUpdateTest extends OptimisticUpdateCases {
  @RegisterExtension
  static final PostgresServer server = new PostgresServer();

  @Override
  TestDatabase db() {
    return server;
  }
}

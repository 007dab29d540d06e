package dev.dlock.jdbc;

class H2OptimisticUpdateTest extends OptimisticUpdateCases {
  private static final H2Database DB = new H2Database();

  @Override
  TestDatabase db() {
    return DB;
  }
}

package dev.dlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** MariaDB and MySQL read one schema file; each gets its own binary collation in every column. */
class SchemaFileTest {

  @Test
  void mariaDbAndMySqlShareOneFileWithTheirOwnCollation() {
    List<String> mariaDb = Schema.createStatements(new MariaDbDialect("t", 5, false));
    List<String> mySql = Schema.createStatements(new MariaDbDialect("t", 5, true));
    assertThat(String.join(";", mariaDb)).contains("COLLATE utf8mb4_nopad_bin")
        .doesNotContain("{collation}", "0900");
    assertThat(String.join(";", mySql)).contains("COLLATE utf8mb4_0900_bin")
        .doesNotContain("{collation}", "nopad");
    assertThat(mySql).hasSameSizeAs(mariaDb);
    for (int i = 0; i < mariaDb.size(); i++) {
      assertThat(mySql.get(i).replace("utf8mb4_0900_bin", "utf8mb4_nopad_bin")).isEqualTo(mariaDb.get(i));
    }
  }
}

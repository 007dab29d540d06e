package dev.dlock.bench.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.bench.demo.FlashSaleDemo.Outcome;
import dev.dlock.bench.demo.FlashSaleDemo.Settings;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlashSaleDemoTest {

  @Test
  void theLockedSaleSellsTheStockExactly() throws Exception {
    List<Outcome> outcomes = FlashSaleDemo.run(new Settings(30, 3, 4));

    assertThat(outcomes).extracting(Outcome::strategy).containsExactly("no lock", "dlock");
    Outcome locked = outcomes.get(1);
    assertThat(locked.sold()).isEqualTo(30);
    assertThat(locked.oversold()).isZero();
    // Lost updates only ever leave more stock behind, so the unlocked sale sells at least as much.
    assertThat(outcomes.get(0).sold()).isGreaterThanOrEqualTo(30);
    assertThat(FlashSaleDemo.table(outcomes)).contains("dlock    |    30 |        0 |");
  }

  @Test
  void withTheDefaultSizesTheUnlockedSaleOversells() throws Exception {
    // 32 buyers sleeping between read and write: in trials it oversold by well over 1000 every time.
    List<Outcome> outcomes = FlashSaleDemo.run(new Settings(100, 4, 8));

    assertThat(outcomes.get(0).oversold()).isPositive();
    assertThat(outcomes.get(1).sold()).isEqualTo(100);
    assertThat(outcomes.get(1).oversold()).isZero();
  }

  @Test
  void parsesItsOptions() {
    assertThat(FlashSaleDemo.parse(new String[0])).isEqualTo(new Settings(100, 4, 8));
    assertThat(FlashSaleDemo.parse(new String[] {"--stock", "5", "--buyers", "2"}))
        .isEqualTo(new Settings(5, 4, 2));
    assertThatThrownBy(() -> FlashSaleDemo.parse(new String[] {"--stock"})).hasMessageContaining("needs a value");
    assertThatThrownBy(() -> FlashSaleDemo.parse(new String[] {"--stock", "x"})).hasMessageContaining("'x'");
    assertThatThrownBy(() -> FlashSaleDemo.parse(new String[] {"--stock", "0"})).hasMessageContaining("at least 1");
  }
}

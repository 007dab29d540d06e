package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.lab.HtmlReport;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LabCommandTest {
  @Test
  void theReportLinksToTheGuideOfTheCheckoutItWasMadeInWhereverTheReportIs(@TempDir Path tmp) throws Exception {
    Path checkout = Files.createDirectories(tmp.resolve("checkout"));
    Path guide = Files.createDirectories(checkout.resolve("docs")).resolve("choosing-a-lock.md");
    Files.writeString(guide, "# Choosing a lock\n");
    Path report = Files.createDirectories(tmp.resolve("reports/today")).resolve("lab-report.html");

    String href = LabCommand.guideFrom(report, checkout);

    assertThat(href).isEqualTo("../../checkout/docs/choosing-a-lock.md");
    assertThat(report.getParent().resolve(href).normalize()).isEqualTo(guide.normalize());
    assertThat(LabCommand.guideFrom(checkout.resolve("lab-report.html"), checkout)).isEqualTo(HtmlReport.GUIDE);
  }

  @Test
  void outsideACheckoutTheLinkNamesTheGuidesPlaceInTheRepository(@TempDir Path tmp) {
    assertThat(LabCommand.guideFrom(tmp.resolve("lab-report.html"), tmp)).isEqualTo(HtmlReport.GUIDE);
  }
}

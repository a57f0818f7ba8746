package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.pipelines.IotJob;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bronze, Silver and Gold run one after the other as separate jobs give what one job gives. */
class StagesAloneTest {
  @TempDir Path tmp;

  @Test
  void threeStageJobsEqualOneJob() throws Exception {
    Path staged = tmp.resolve("staged");
    Runs.run(IotJob.Stage.BRONZE, Runs.options(staged, "--input=" + Runs.EVENTS, "--runId=b"));
    Runs.run(IotJob.Stage.SILVER, Runs.options(staged, "--runId=s"));
    Runs.run(IotJob.Stage.GOLD, Runs.options(staged, "--runId=g"));

    Path whole = tmp.resolve("whole");
    Runs.run(IotJob.Stage.ALL, Runs.options(whole, "--input=" + Runs.EVENTS));

    assertThat(Runs.currentGold(staged))
        .isNotEmpty()
        .containsExactlyElementsOf(Runs.currentGold(whole));
    assertThat(Validate.validate(staged.toString(), Runs.EVENTS.toString()))
        .allMatch(Validate.Check::passed);
  }
}

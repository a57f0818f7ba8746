package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.iot.IotMedallion;
import dev.medallion.iot.WindowedDeviceStats;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.display.HasDisplayData;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Gold's grouping is the runner's choice ({@code IotJob.forRunner}): on Spark a bounded input's
 * groups are keyed per minute, which bounds what Spark holds per key, and a stream is joined device
 * by device; elsewhere a stream's devices are joined in groups. The choice shows in the steps'
 * display data, the job graph's description of each step.
 */
class GoldGroupingForRunnerTest {
  private static final Duration LATENESS = Duration.standardMinutes(2);
  private static final Duration SLACK = Duration.standardMinutes(5);

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    // runner, a bounded input's groups keyed per minute, a stream's devices in groups
    "SparkRunner, true, false, [KEYS_PER_MINUTE]",
    "DirectRunner, false, true, [STREAMS_IN_GROUPS]"
  })
  void goldGroupsAsTheRunnerSuits(
      String runner, boolean keysPerMinute, boolean streamsInGroups, String medallionGrouping) {
    IotOptions options = PipelineOptionsFactory.fromArgs("--runner=" + runner).as(IotOptions.class);

    Map<String, Object> gold =
        displayed(
            IotJob.forRunner(
                options, WindowedDeviceStats.of(LATENESS, SLACK).withExpectedDevices(10)));
    assertThat(gold)
        .containsEntry("keysPerMinute", keysPerMinute)
        .containsEntry("streamsInGroups", streamsInGroups)
        .containsEntry("expectedDevices", 10L);

    Map<String, Object> medallion =
        displayed(IotJob.forRunner(options, IotMedallion.withRegistry(Map.of())));
    assertThat(medallion).containsEntry("goldGrouping", medallionGrouping);
  }

  @Test
  void withoutARunnersChoiceGoldGroupsNeitherWay() {
    assertThat(displayed(WindowedDeviceStats.of(LATENESS, SLACK)))
        .containsEntry("keysPerMinute", false)
        .containsEntry("streamsInGroups", false)
        .containsEntry("allowedLateness", LATENESS.getMillis());
    assertThat(displayed(IotMedallion.withRegistry(Map.of()).withLateness(LATENESS, SLACK)))
        .containsEntry("goldGrouping", "[]")
        .containsEntry("devices", 0L)
        .containsEntry("watermarkSlack", SLACK.getMillis());
  }

  /** A step's display data, by key. */
  private static Map<String, Object> displayed(HasDisplayData step) {
    Map<String, Object> items = new TreeMap<>();
    for (DisplayData.Item item : DisplayData.from(step).items()) {
      items.put(item.getKey(), item.getValue());
    }
    return items;
  }
}

package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.iot.ValidateAndEnrich;
import dev.medallion.pipelines.IotJob;
import dev.medallion.pipelines.IotOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.values.PCollection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The silver stage forwards its readings and heartbeats to {@code --outputTopic} from Silver's kept
 * records in the order its step kept them ({@code ValidateAndEnrich.KEPT}), through one Kafka
 * writer. Sent from Silver's two outputs, each kind by its own steps, under a backlog the
 * heartbeats reached the topic seconds behind the readings of the same devices, which on the
 * arrival clock of a backlog read at full speed was more than Gold's disorder, lateness and slack
 * together, and the runner dropped them (the heartbeats of one partition's first 14 minutes in the
 * streaming benchmark's backlog of 1M).
 */
class SilverForwardingTest {
  @Test
  void readingsAndHeartbeatsGoOutInOneStepFromSilversInput(@TempDir Path lake) {
    IotOptions options =
        Runs.options(
            lake,
            "--inputTopic=iot-bronze",
            "--outputTopic=iot-silver",
            "--bootstrapServers=127.0.0.1:9");
    Pipeline p = Pipeline.create(options);
    IotJob.build(p, IotJob.Stage.SILVER, options);
    List<String> writers = new ArrayList<>();
    Map<String, List<PCollection<?>>> inputs = new HashMap<>();
    Map<String, PCollection<?>> producedBy = new HashMap<>();
    p.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            if (node.getFullName().endsWith("/WriteKafka iot-silver")) {
              writers.add(node.getFullName());
            }
            remember(node);
            return CompositeBehavior.ENTER_TRANSFORM;
          }

          @Override
          public void visitPrimitiveTransform(TransformHierarchy.Node node) {
            remember(node);
          }

          private void remember(TransformHierarchy.Node node) {
            List<PCollection<?>> in = new ArrayList<>();
            node.getInputs().values().forEach(v -> in.add((PCollection<?>) v));
            inputs.put(node.getFullName(), in);
            node.getOutputs().entrySet().stream()
                .filter(e -> e.getKey().equals(ValidateAndEnrich.KEPT))
                .forEach(e -> producedBy.put(node.getFullName(), (PCollection<?>) e.getValue()));
          }
        });
    assertThat(writers).as("Kafka writers of iot-silver").hasSize(1);
    assertThat(inputs.get("Forward/SilverRowsToJson"))
        .as("the forwarded rows are Silver's kept records, in the order its step kept them")
        .singleElement()
        .isEqualTo(producedBy.get("Silver/ValidateRecord"));
  }
}

package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.pipelines.IotJob;
import dev.medallion.pipelines.IotOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The silver stage forwards its readings and heartbeats to {@code --outputTopic} through one Kafka
 * writer. With a writer per kind, under a backlog the heartbeats reached the topic seconds behind
 * the readings of the same devices, which on the arrival clock of a backlog read at full speed was
 * more than Gold's disorder, lateness and slack together, and the runner dropped them (the
 * heartbeats of one partition's first 14 minutes in the streaming benchmark's backlog of 1M; Gold
 * equal to Spark's bounded read once they went out together).
 */
class SilverForwardingTest {
  @Test
  void readingsAndHeartbeatsGoOutThroughOneWriter(@TempDir Path lake) {
    IotOptions options =
        Runs.options(
            lake,
            "--inputTopic=iot-bronze",
            "--outputTopic=iot-silver",
            "--bootstrapServers=127.0.0.1:9");
    Pipeline p = Pipeline.create(options);
    IotJob.build(p, IotJob.Stage.SILVER, options);
    List<String> writers = new ArrayList<>();
    List<String> fedBy = new ArrayList<>();
    p.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            if (node.getFullName().endsWith("/WriteKafka iot-silver")) {
              writers.add(node.getFullName());
              node.getInputs().values().forEach(in -> fedBy.add(in.getName()));
            }
            return CompositeBehavior.ENTER_TRANSFORM;
          }
        });
    assertThat(writers).as("Kafka writers of iot-silver").hasSize(1);
    assertThat(fedBy).singleElement().asString().contains("Together");
  }
}

package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.testing.BeamPipelineExtension;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(BeamPipelineExtension.class)
class FailsafeTest {
  private static final TupleTag<Integer> KEPT = new TupleTag<>() {};

  @Test
  void aRejectionKeepsItsReason() {
    InvalidRecordException rejection = new InvalidRecordException("not_json", "words");
    assertThat(Failsafe.rejection(rejection)).isSameAs(rejection);
  }

  @Test
  void anyOtherExceptionIsAnUnexpectedErrorWithItsStackTrace() {
    InvalidRecordException e = Failsafe.rejection(new ArithmeticException("/ by zero"));
    assertThat(e.getReason()).isEqualTo("unexpected_error");
    assertThat(e.getMessage())
        .startsWith("java.lang.ArithmeticException: / by zero")
        .contains("\tat dev.medallion.core.FailsafeTest.");
  }

  /** A record-level step that follows the pattern, with a rule that breaks on one record. */
  static class DivideFn extends DoFn<String, Integer> {
    @ProcessElement
    public void process(@Element String line, MultiOutputReceiver out) {
      int value;
      try {
        value = 100 / Integer.parseInt(line);
      } catch (RuntimeException thrown) {
        InvalidRecordException e = Failsafe.rejection(thrown);
        out.get(DeadLetter.TAG)
            .output(
                DeadLetter.of(
                    "test", e.getReason(), e.getMessage(), line, "t", "t", null, new Instant(0)));
        return;
      }
      out.get(KEPT).output(value);
    }
  }

  @Test
  void aBrokenRuleCostsOneRecordNotTheBundle(TestPipeline p) {
    PCollectionTuple out =
        p.apply(Create.of("4", "0", "5"))
            .apply(ParDo.of(new DivideFn()).withOutputTags(KEPT, TupleTagList.of(DeadLetter.TAG)));
    PAssert.that(out.get(KEPT)).containsInAnyOrder(25, 20);
    PAssert.thatSingleton(out.get(DeadLetter.TAG))
        .satisfies(
            d -> {
              assertThat(d.getOriginalPayload()).isEqualTo("0");
              assertThat(d.getReason()).isEqualTo("unexpected_error");
              assertThat(d.getDetail()).contains("ArithmeticException", "\tat ");
              return null;
            });
    p.run().waitUntilFinish();
  }
}

package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lambdaoutbox.template.AwsCallRecords.Call;
import dev.lambdaoutbox.testing.PackagedFunction;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The IAM check of the whole suite: every AWS call the functions, the writer library and the
 * consumer made while the other tests ran (in their JVM or in a packaged function's, recorded by
 * {@code AwsCallRecorder}) must be allowed by template.yaml's policies as AWS's SAM translator
 * renders them, in every deployment the docs allow that call in; the application's wake-ups by the
 * poller's resource policy and the {@code WakeUpInvokerPolicy} statement docs/writing.md shows; a
 * consumer's reads of payloads by the policy of docs/consuming.md. No policy of those stacks may be
 * one IAM refuses.
 *
 * <p>It runs in a surefire execution of its own ({@code iam-check}), after the others have run; the
 * default execution skips it. After a run of some tests only ({@code -Dtest=...}) it checks their
 * calls when {@code -Dtest} names it ({@code -Dtest='PackagedFunctionsTest,RecordedCallsIamTest'}),
 * and is skipped otherwise. It fails when no call was recorded. After the whole suite it also fails
 * when a configuration the suite should run was not checked (FIFO, customer keys, EventBridge, the
 * claim check, fan-out, the Data API, wake-ups, a replay, a consumer).
 */
@EnabledIfSystemProperty(named = AwsCallRecords.CHECK_PROPERTY, matches = "true")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RecordedCallsIamTest {
  private List<Call> calls;
  private IamCheck.Result result;

  @BeforeAll
  void check() {
    String filter = AwsCallRecords.testFilter();
    assumeTrue(
        filter == null || filter.contains(RecordedCallsIamTest.class.getSimpleName()),
        "a run of some tests only (" + filter + "), which did not ask for the IAM check");
    Path dir = AwsCallRecords.directory();
    calls = AwsCallRecords.read(dir);
    assertThat(calls)
        .as(
            "AWS calls recorded in %s: the tests that make them run before this check, in the"
                + " same build (e.g. -Dtest='PackagedFunctionsTest,RecordedCallsIamTest')",
            dir)
        .isNotEmpty();
    long started = System.nanoTime();
    result =
        IamCheck.check(
            PackagedFunction.projectRoot().resolve("template.yaml"),
            calls,
            IamCheck.DocumentedPolicies.fromDocs());
    System.out.printf(
        "IAM check: %d recorded calls, %d checks of a call in a deployment, in %d ms; covered:%n  %s%n",
        result.calls(),
        result.checks(),
        (System.nanoTime() - started) / 1_000_000,
        String.join("\n  ", result.covered()));
  }

  @Test
  void everyRecordedCall_isAllowed_inEveryDeploymentThatMakesIt() {
    assertThat(result.denials()).as("calls IAM would deny").isEmpty();
  }

  @Test
  void everyPolicyOfThoseDeployments_isOneIamTakes_andTheDocsSayWhatTheStackDoes() {
    assertThat(result.problems()).isEmpty();
  }

  /** Only after the whole suite: with {@code -Dtest=...} fewer configurations run. */
  @Test
  void theWholeSuite_coversEveryConfigurationTheCheckKnows() {
    assumeTrue(
        AwsCallRecords.testFilter() == null,
        "a run of some tests only: " + AwsCallRecords.testFilter());
    assertThat(result.covered())
        .as("configurations the suite's recorded calls cover")
        .containsAll(IamCheck.COVERAGE);
  }
}

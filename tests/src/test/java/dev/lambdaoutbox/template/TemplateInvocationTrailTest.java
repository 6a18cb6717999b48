package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code ReprocessorInvocationTrail}: off by default (CloudTrail bills every data event); on, a
 * trail of the stack records the reprocessor's {@code Invoke} calls, and nothing else, in a private
 * bucket only that trail may write to. The audit's request id finds a call's record there.
 */
class TemplateInvocationTrailTest {
  private static final SamTemplate TEMPLATE = SamTemplate.load();
  private static final String TRAIL_ARN =
      "arn:aws:cloudtrail:us-east-1:123456789012:trail/outbox-reprocessor-invocations";
  private static final List<String> TRAIL_RESOURCES =
      List.of("ReprocessorTrail", "ReprocessorTrailBucket", "ReprocessorTrailBucketPolicy");

  private static SamTemplate.Resolved resolve(String... more) {
    return TEMPLATE.resolve(SamTemplate.requiredParameters(more), "outbox", Map.of());
  }

  @Test
  void byDefault_thereIsNoTrail() {
    SamTemplate.Resolved stack = resolve();
    assertThat(stack.resources()).doesNotContainKeys(TRAIL_RESOURCES.toArray(String[]::new));
    assertThat(stack.resourcesOfType("AWS::CloudTrail::Trail")).isEmpty();
    assertThat(stack.outputs()).doesNotContainKey("ReprocessorInvocationTrailBucket");
  }

  @Test
  void on_aTrailRecordsTheReprocessorsInvocations_andNothingElse() {
    SamTemplate.Resolved stack = resolve("ReprocessorInvocationTrail", "true");
    assertThat(stack.ruleFailures()).isEmpty();
    assertThat(stack.resources()).containsKeys(TRAIL_RESOURCES.toArray(String[]::new));

    Map<String, Object> trailResource = stack.resources().get("ReprocessorTrail");
    assertThat(trailResource.get("DependsOn"))
        .as("CloudTrail checks it may write before it creates the trail")
        .isEqualTo("ReprocessorTrailBucketPolicy");
    Map<String, Object> trail = stack.properties("ReprocessorTrail");
    assertThat(trail)
        .containsEntry("TrailName", "outbox-reprocessor-invocations")
        .containsEntry("S3BucketName", "arn-of-ReprocessorTrailBucket")
        .containsEntry("IsLogging", true)
        .containsEntry("IsMultiRegionTrail", false)
        .containsEntry("IncludeGlobalServiceEvents", false)
        .containsEntry("EnableLogFileValidation", true)
        .doesNotContainKey("EventSelectors");
    List<?> selectors = (List<?>) trail.get("AdvancedEventSelectors");
    assertThat(selectors).as("one selector: no management events, no other resource").hasSize(1);
    assertThat((List<?>) SamTemplate.map(selectors.get(0)).get("FieldSelectors"))
        .map(SamTemplate::map)
        .containsExactlyInAnyOrder(
            Map.of("Field", "eventCategory", "Equals", List.of("Data")),
            Map.of("Field", "resources.type", "Equals", List.of("AWS::Lambda::Function")),
            Map.of(
                "Field",
                "resources.ARN",
                "StartsWith",
                List.of("getatt-of-DlqReprocessorFunction.Arn")));

    Map<String, Object> bucket = stack.properties("ReprocessorTrailBucket");
    assertThat(SamTemplate.map(bucket.get("PublicAccessBlockConfiguration")))
        .containsOnly(
            Map.entry("BlockPublicAcls", true),
            Map.entry("BlockPublicPolicy", true),
            Map.entry("IgnorePublicAcls", true),
            Map.entry("RestrictPublicBuckets", true));
    assertThat(stack.resources().get("ReprocessorTrailBucket"))
        .as("the evidence outlives the stack")
        .containsEntry("DeletionPolicy", "Retain");

    Map<String, Object> policy = stack.properties("ReprocessorTrailBucketPolicy");
    assertThat(policy.get("Bucket")).isEqualTo("arn-of-ReprocessorTrailBucket");
    List<?> statements = (List<?>) SamTemplate.map(policy.get("PolicyDocument")).get("Statement");
    assertThat(statements).hasSize(2);
    for (Object s : statements) {
      Map<String, Object> statement = SamTemplate.map(s);
      assertThat(statement.get("Principal"))
          .isEqualTo(Map.of("Service", "cloudtrail.amazonaws.com"));
      assertThat(SamTemplate.map(SamTemplate.map(statement.get("Condition")).get("StringEquals")))
          .as("only this stack's trail")
          .containsEntry("aws:SourceArn", TRAIL_ARN);
    }
    assertThat(stack.outputs()).containsKey("ReprocessorInvocationTrailBucket");
  }
}

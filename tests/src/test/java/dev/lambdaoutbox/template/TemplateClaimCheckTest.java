package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The claim check's bucket as the stack creates it, read from template.yaml resolved as
 * CloudFormation would resolve it: encrypted with S3's keys or the KMS key given (the poller then
 * may generate data keys with it, and nothing more), reachable over TLS only, its objects expiring
 * after every consumer's queue has let go of their messages (the stack refuses an expiration that
 * would not), and the created topic's prefix given to its subscribers.
 */
class TemplateClaimCheckTest {
  private static final SamTemplate TEMPLATE = SamTemplate.load();
  private static final String KEY = "arn:aws:kms:us-east-1:123456789012:key/3333-4444";

  private static SamTemplate.Resolved resolve(String... parameters) {
    return TEMPLATE.resolve(SamTemplate.requiredParameters(parameters), "outbox", Map.of());
  }

  @Test
  void createdBucket_usesS3sKeys_orSseKmsWithTheKeyGiven_andThePollerMayOnlyGenerateDataKeys() {
    SamTemplate.Resolved s3Keys = resolve("ClaimCheckBucket", "Create");
    assertThat(encryption(s3Keys))
        .isEqualTo(Map.of("ServerSideEncryptionByDefault", Map.of("SSEAlgorithm", "AES256")));
    assertThat(TemplatePermissionsTest.actions(s3Keys, "PollerFunction"))
        .doesNotContainKeys("kms:GenerateDataKey", "kms:Decrypt");

    SamTemplate.Resolved kms = resolve("ClaimCheckBucket", "Create", "ClaimCheckKmsKeyArn", KEY);
    assertThat(encryption(kms))
        .isEqualTo(
            Map.of(
                "ServerSideEncryptionByDefault",
                Map.of("SSEAlgorithm", "aws:kms", "KMSMasterKeyID", KEY),
                "BucketKeyEnabled",
                true));
    Map<String, List<String>> actions = TemplatePermissionsTest.actions(kms, "PollerFunction");
    assertThat(actions.get("kms:GenerateDataKey")).containsExactly(KEY);
    assertThat(actions).doesNotContainKey("kms:Decrypt");
    assertThat(actions.get("s3:PutObject"))
        .containsExactly("arn:aws:s3:::arn-of-ClaimCheckPayloadBucket/outbox-payloads/*");
  }

  @Test
  void anExistingBucketsKey_isGrantedToThePoller_andNoBucketIsCreated() {
    SamTemplate.Resolved existing =
        resolve("ClaimCheckBucket", "orders-payloads", "ClaimCheckKmsKeyArn", KEY);

    assertThat(existing.resources())
        .doesNotContainKeys("ClaimCheckPayloadBucket", "ClaimCheckPayloadBucketPolicy");
    assertThat(
            TemplatePermissionsTest.actions(existing, "PollerFunction").get("kms:GenerateDataKey"))
        .containsExactly(KEY);
    assertThat(existing.environment("PollerFunction"))
        .containsEntry("OUTBOX_CLAIM_CHECK_BUCKET", "orders-payloads")
        .containsEntry("OUTBOX_CLAIM_CHECK_BUCKET_OWNER", SamTemplate.ACCOUNT);
    assertThat(
            TemplatePermissionsTest.actions(resolve("ClaimCheckKmsKeyArn", KEY), "PollerFunction")
                .get("kms:GenerateDataKey"))
        .as("no claim check, no key")
        .isNull();
  }

  @Test
  void createdBucket_deniesEveryRequestWithoutTls() {
    SamTemplate.Resolved stack = resolve("ClaimCheckBucket", "Create");

    Map<String, Object> policy = stack.properties("ClaimCheckPayloadBucketPolicy");
    assertThat(policy.get("Bucket")).isEqualTo("arn-of-ClaimCheckPayloadBucket");
    List<?> statements = (List<?>) SamTemplate.map(policy.get("PolicyDocument")).get("Statement");
    assertThat(statements).hasSize(1);
    Map<String, Object> deny = SamTemplate.map(statements.get(0));
    assertThat(deny)
        .containsEntry("Effect", "Deny")
        .containsEntry("Principal", "*")
        .containsEntry("Action", "s3:*")
        .containsEntry(
            "Resource",
            List.of(
                "getatt-of-ClaimCheckPayloadBucket.Arn", "getatt-of-ClaimCheckPayloadBucket.Arn/*"))
        .containsEntry("Condition", Map.of("Bool", Map.of("aws:SecureTransport", "false")));
  }

  /**
   * Every retention the parameter allows against expirations up to 40 days: the stack deploys
   * exactly when the objects outlive the queues, and its defaults do.
   */
  @Test
  void createdBucket_mustKeepPayloadsLongerThanTheConsumersKeepMessages_everyPairChecked() {
    List<String> wrong = new ArrayList<>();
    for (int retention = 1; retention <= 28; retention++) {
      for (int expiration = 2; expiration <= 40; expiration++) {
        List<String> failures =
            resolve(
                    "ClaimCheckBucket",
                    "Create",
                    "ClaimCheckConsumerRetentionDays",
                    Integer.toString(retention),
                    "ClaimCheckExpirationDays",
                    Integer.toString(expiration))
                .ruleFailures();
        boolean refused =
            failures.stream().anyMatch(f -> f.contains("ClaimCheckConsumerRetentionDays"));
        if (refused != (expiration <= retention)) {
          wrong.add("retention " + retention + ", expiration " + expiration + ": " + failures);
        }
      }
    }
    assertThat(wrong).isEmpty();
    assertThat(resolve("ClaimCheckBucket", "Create").ruleFailures()).as("the defaults").isEmpty();
    assertThat(
            resolve(
                    "ClaimCheckBucket",
                    "orders-payloads",
                    "ClaimCheckConsumerRetentionDays",
                    "14",
                    "ClaimCheckExpirationDays",
                    "2")
                .ruleFailures())
        .as("an existing bucket's lifecycle is its owner's")
        .isEmpty();
    Map<String, Object> lifecycle =
        SamTemplate.map(
            resolve("ClaimCheckBucket", "Create")
                .properties("ClaimCheckPayloadBucket")
                .get("LifecycleConfiguration"));
    assertThat(lifecycle.get("Rules"))
        .isEqualTo(
            List.of(
                Map.of(
                    "Id", "ExpireStoredPayloads",
                    "Status", "Enabled",
                    "Prefix", "outbox-payloads/",
                    "ExpirationInDays", "15"),
                Map.of(
                    "Id",
                    "RemoveReplacedVersionsAfterADay",
                    "Status",
                    "Enabled",
                    "NoncurrentVersionExpiration",
                    Map.of("NoncurrentDays", 1),
                    "ExpiredObjectDeleteMarker",
                    true)));
  }

  @Test
  void theCreatedTopicsPayloadPrefix_isAnOutput_forItsSubscribers() {
    assertThat(resolve("ClaimCheckBucket", "Create").outputs())
        .containsEntry(
            "ClaimCheckOutboxTopicPrefix",
            "outbox-payloads/sns/" + SamTemplate.ACCOUNT + "/getatt-of-OutboxTopic.TopicName/");
    assertThat(resolve().outputs()).doesNotContainKey("ClaimCheckOutboxTopicPrefix");
    assertThat(
            resolve(
                    "ClaimCheckBucket",
                    "Create",
                    "OutboxTopicType",
                    "none",
                    "DefaultDestination",
                    "arn:aws:sns:us-east-1:123456789012:orders",
                    "PublishTopicArns",
                    "arn:aws:sns:us-east-1:123456789012:orders")
                .outputs())
        .doesNotContainKey("ClaimCheckOutboxTopicPrefix");
  }

  private static Object encryption(SamTemplate.Resolved stack) {
    Map<String, Object> bucket = stack.properties("ClaimCheckPayloadBucket");
    List<?> rules =
        (List<?>)
            SamTemplate.map(bucket.get("BucketEncryption"))
                .get("ServerSideEncryptionConfiguration");
    assertThat(rules).hasSize(1);
    return rules.get(0);
  }
}

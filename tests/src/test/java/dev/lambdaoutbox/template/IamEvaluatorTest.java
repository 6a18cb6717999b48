package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.template.IamEvaluator.Decision;
import dev.lambdaoutbox.template.IamEvaluator.Request;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * IAM's decisions as {@link IamEvaluator} takes them, on the cases AWS's policy evaluation logic
 * and element references describe: wildcards in actions (any case) and resources (exact case),
 * NotAction and NotResource, the condition operators the template uses, an explicit Deny over an
 * Allow, resource-based statements by principal and account, and the documents IAM refuses.
 */
class IamEvaluatorTest {
  private static final String TOPIC = "arn:aws:sns:us-east-1:123456789012:orders";
  private static final String KEY = "arn:aws:kms:us-east-1:123456789012:key/k-1";

  private static Map<String, Object> allow(Object action, Object resource) {
    return Map.of("Effect", "Allow", "Action", action, "Resource", resource);
  }

  private static Decision decide(Map<String, Object> statement, String action, String resource) {
    return IamEvaluator.decide(List.of(statement), Request.of(action, resource));
  }

  @Test
  void anActionMatches_caseInsensitively_withStarAndQuestionMark() {
    assertThat(decide(allow("sns:Publish", TOPIC), "sns:Publish", TOPIC))
        .isEqualTo(Decision.ALLOWED);
    assertThat(decide(allow("SNS:publish", TOPIC), "sns:Publish", TOPIC))
        .isEqualTo(Decision.ALLOWED);
    assertThat(decide(allow("sns:*", TOPIC), "sns:Publish", TOPIC)).isEqualTo(Decision.ALLOWED);
    assertThat(decide(allow("kms:GenerateDataKey*", KEY), "kms:GenerateDataKey", KEY))
        .isEqualTo(Decision.ALLOWED);
    assertThat(decide(allow("sns:Publis?", TOPIC), "sns:Publish", TOPIC))
        .isEqualTo(Decision.ALLOWED);
    assertThat(decide(allow("sns:Publish", TOPIC), "sns:PublishBatch", TOPIC))
        .as("an action is never a prefix of another")
        .isEqualTo(Decision.IMPLICITLY_DENIED);
    assertThat(decide(allow("sqs:SendMessage", TOPIC), "sns:Publish", TOPIC))
        .isEqualTo(Decision.IMPLICITLY_DENIED);
  }

  @Test
  void aResourceMatches_exactly_orByWildcardsThatSpanColonsAndSlashes() {
    assertThat(decide(allow("sns:Publish", TOPIC), "sns:Publish", TOPIC + "-2"))
        .isEqualTo(Decision.IMPLICITLY_DENIED);
    assertThat(decide(allow("sns:Publish", TOPIC.toUpperCase()), "sns:Publish", TOPIC))
        .as("ARNs match case-sensitively")
        .isEqualTo(Decision.IMPLICITLY_DENIED);
    assertThat(
            decide(allow("sns:Publish", "arn:aws:sns:*:123456789012:ord?rs"), "sns:Publish", TOPIC))
        .isEqualTo(Decision.ALLOWED);
    assertThat(
            decide(
                allow("s3:PutObject", "arn:aws:s3:::b/p/*"),
                "s3:PutObject",
                "arn:aws:s3:::b/p/x/y"))
        .isEqualTo(Decision.ALLOWED);
    assertThat(
            decide(
                allow("s3:PutObject", "arn:aws:s3:::b/p/*"), "s3:PutObject", "arn:aws:s3:::b/q/x"))
        .isEqualTo(Decision.IMPLICITLY_DENIED);
    assertThat(
            decide(allow("sns:Publish", List.of("arn:aws:sns:*:*:a", TOPIC)), "sns:Publish", TOPIC))
        .as("any resource of a list")
        .isEqualTo(Decision.ALLOWED);
    assertThat(decide(allow("sns:Publish", "*"), "sns:Publish", TOPIC)).isEqualTo(Decision.ALLOWED);
  }

  @Test
  void notActionAndNotResource_matchWhatTheyDoNotName() {
    Map<String, Object> allButDelete =
        Map.of("Effect", "Allow", "NotAction", "sns:DeleteTopic", "Resource", TOPIC);
    assertThat(decide(allButDelete, "sns:Publish", TOPIC)).isEqualTo(Decision.ALLOWED);
    assertThat(decide(allButDelete, "sns:DeleteTopic", TOPIC))
        .isEqualTo(Decision.IMPLICITLY_DENIED);
    Map<String, Object> elsewhere =
        Map.of("Effect", "Allow", "Action", "sns:Publish", "NotResource", TOPIC);
    assertThat(decide(elsewhere, "sns:Publish", TOPIC)).isEqualTo(Decision.IMPLICITLY_DENIED);
    assertThat(decide(elsewhere, "sns:Publish", TOPIC + "-2")).isEqualTo(Decision.ALLOWED);
  }

  @Test
  void anExplicitDeny_winsOverAnyAllow() {
    List<Map<String, Object>> statements =
        List.of(
            allow("sns:*", "*"),
            Map.of("Effect", "Deny", "Action", "sns:Publish", "Resource", TOPIC));
    assertThat(IamEvaluator.decide(statements, Request.of("sns:Publish", TOPIC)))
        .isEqualTo(Decision.EXPLICITLY_DENIED);
    assertThat(IamEvaluator.decide(statements, Request.of("sns:Publish", TOPIC + "-2")))
        .isEqualTo(Decision.ALLOWED);
    assertThat(IamEvaluator.decide(List.of(), Request.of("sns:Publish", TOPIC)))
        .as("nothing allows")
        .isEqualTo(Decision.IMPLICITLY_DENIED);
  }

  @Test
  void conditions_stringEqualsAndLike_onTheRequestsKeys_missingKeysFailingThem() {
    Map<String, Object> viaSecretsManager =
        Map.of(
            "Effect",
            "Allow",
            "Action",
            "kms:Decrypt",
            "Resource",
            KEY,
            "Condition",
            Map.of(
                "StringEquals",
                Map.of("kms:ViaService", "secretsmanager.us-east-1.amazonaws.com")));
    Request through =
        new Request(
            null,
            "kms:Decrypt",
            KEY,
            Map.of("kms:viaservice", "secretsmanager.us-east-1.amazonaws.com"));
    Request throughS3 =
        new Request(
            null, "kms:Decrypt", KEY, Map.of("kms:ViaService", "s3.us-east-1.amazonaws.com"));
    assertThat(IamEvaluator.decide(List.of(viaSecretsManager), through))
        .as("condition keys are case-insensitive")
        .isEqualTo(Decision.ALLOWED);
    assertThat(IamEvaluator.decide(List.of(viaSecretsManager), throughS3))
        .isEqualTo(Decision.IMPLICITLY_DENIED);
    assertThat(IamEvaluator.decide(List.of(viaSecretsManager), Request.of("kms:Decrypt", KEY)))
        .as("a call straight to KMS has no kms:ViaService")
        .isEqualTo(Decision.IMPLICITLY_DENIED);

    Map<String, Object> anyService =
        Map.of(
            "Effect",
            "Allow",
            "Action",
            "kms:Decrypt",
            "Resource",
            KEY,
            "Condition",
            Map.of("StringLike", Map.of("kms:ViaService", List.of("sns.*", "s3.*"))));
    assertThat(IamEvaluator.decide(List.of(anyService), throughS3)).isEqualTo(Decision.ALLOWED);
    assertThat(IamEvaluator.decide(List.of(anyService), through))
        .isEqualTo(Decision.IMPLICITLY_DENIED);

    Map<String, Object> notS3 =
        Map.of(
            "Effect",
            "Deny",
            "Action",
            "kms:Decrypt",
            "Resource",
            KEY,
            "Condition",
            Map.of("StringNotEquals", Map.of("kms:ViaService", "s3.us-east-1.amazonaws.com")));
    assertThat(IamEvaluator.decide(List.of(anyService, notS3), throughS3))
        .isEqualTo(Decision.ALLOWED);
    assertThat(
            IamEvaluator.decide(
                List.of(allow("kms:*", "*"), notS3), Request.of("kms:Decrypt", KEY)))
        .as("a negated operator holds when the key is missing")
        .isEqualTo(Decision.EXPLICITLY_DENIED);
  }

  @Test
  void anOperatorNotKnownHere_isRefused_notGuessedAt() {
    Map<String, Object> dated =
        Map.of(
            "Effect",
            "Allow",
            "Action",
            "sns:Publish",
            "Resource",
            TOPIC,
            "Condition",
            Map.of("DateLessThan", Map.of("aws:CurrentTime", "2030-01-01T00:00:00Z")));
    assertThatThrownBy(() -> decide(dated, "sns:Publish", TOPIC))
        .hasMessageContaining("DateLessThan");
  }

  @Test
  void aResourceBasedStatement_allowsThePrincipalItNames_orAnyOfTheAccountItNames() {
    String alias = "arn:aws:lambda:us-east-1:123456789012:function:outbox-poller:live";
    Map<String, Object> permission =
        Map.of(
            "Effect",
            "Allow",
            "Principal",
            Map.of("AWS", "arn:aws:iam::123456789012:role/app"),
            "Action",
            "lambda:InvokeFunction",
            "Resource",
            alias);
    Request asApp =
        new Request("arn:aws:iam::123456789012:role/app", "lambda:InvokeFunction", alias, Map.of());
    Request asOther =
        new Request(
            "arn:aws:iam::123456789012:role/other", "lambda:InvokeFunction", alias, Map.of());
    assertThat(IamEvaluator.allowedInOneAccount(List.of(), List.of(permission), asApp)).isTrue();
    assertThat(IamEvaluator.allowedInOneAccount(List.of(), List.of(permission), asOther)).isFalse();
    assertThat(
            IamEvaluator.allowedInOneAccount(
                List.of(),
                List.of(permission),
                new Request(
                    "arn:aws:iam::123456789012:role/app",
                    "lambda:InvokeFunction",
                    "arn:aws:lambda:us-east-1:123456789012:function:outbox-poller",
                    Map.of())))
        .as("a permission on an alias does not cover the function's unqualified ARN")
        .isFalse();

    Map<String, Object> toAccount =
        Map.of(
            "Effect",
            "Allow",
            "Principal",
            Map.of("AWS", "arn:aws:iam::123456789012:root"),
            "Action",
            "lambda:InvokeFunction",
            "Resource",
            alias);
    assertThat(IamEvaluator.allowedInOneAccount(List.of(), List.of(toAccount), asOther)).isTrue();

    assertThat(IamEvaluator.allowedAcrossAccounts(List.of(), List.of(permission), asApp))
        .as("across accounts the caller's own policy must allow it too")
        .isFalse();
    assertThat(
            IamEvaluator.allowedAcrossAccounts(
                List.of(allow("lambda:InvokeFunction", alias)), List.of(permission), asApp))
        .isTrue();
  }

  @Test
  void problems_aPolicyWithoutStatement_orAResourceThatIsNoArn_areWhatIamRefuses() {
    assertThat(IamEvaluator.problems(Map.of("Version", "2012-10-17", "Statement", List.of())))
        .singleElement()
        .asString()
        .contains("no statement", "MalformedPolicyDocument");
    assertThat(IamEvaluator.problems(Map.of("Version", "2012-10-17")))
        .singleElement()
        .asString()
        .contains("no statement");
    assertThat(
            IamEvaluator.problems(
                Map.of(
                    "Statement",
                    List.of(
                        Map.of(
                            "Sid",
                            "Q",
                            "Effect",
                            "Allow",
                            "Action",
                            "sqs:SendMessage",
                            "Resource",
                            "https://sqs.us-east-1.amazonaws.com/123456789012/q")))))
        .singleElement()
        .asString()
        .contains("Q", "neither * nor an ARN");
    assertThat(
            IamEvaluator.problems(
                Map.of(
                    "Statement",
                    List.of(Map.of("Sid", "E", "Effect", "Allow", "Action", "sns:Publish")))))
        .singleElement()
        .asString()
        .contains("E", "no resource");
    assertThat(IamEvaluator.problems(Map.of("Statement", allow("sns:Publish", TOPIC)))).isEmpty();
  }
}

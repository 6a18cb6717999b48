package dev.lambdaoutbox.reprocessor.internal.action;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.Client;
import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the audit records of who asked: the name the request declares, as declared, never replaced
 * by anything else the caller writes (the client context); the Cognito identity Lambda took from
 * the call's credentials beside it; the Lambda request id, which finds the CloudTrail record of the
 * call and its IAM principal. (The context here is plain data, as the runtime client builds it; the
 * packaged jar under the runtime client is tested in {@code AuditIdentityTest}.)
 */
class RequesterTest {
  private static final String REQUEST_ID = "7a1c2f0e-5b9d-4e31-9f0a-2d6c8b1e4a77";

  @Test
  void theDeclaredName_isRecordedAsDeclared_andACognitoIdentityBesideIt() {
    Requester.Attribution a =
        Requester.of(
            "alice@example.com",
            context(cognito("eu-west-1:id-1", "eu-west-1:pool"), null),
            REQUEST_ID);

    assertThat(a.requestedBy()).isEqualTo("alice@example.com");
    assertThat(a.claimedBy()).isEqualTo("alice@example.com");
    assertThat(a.invokedBy()).isEqualTo("cognito:eu-west-1:pool/eu-west-1:id-1");
  }

  /** The client context is written by the caller, as freely as requestedBy: it names no one. */
  @Test
  void aClientContext_neverReplacesTheDeclaredName_norCountsAsAnIdentity() {
    Requester.Attribution forged =
        Requester.of("alice", context(null, client("admin@example.com", "outbox-ops")), REQUEST_ID);
    Requester.Attribution both =
        Requester.of(
            "alice", context(cognito("id-1", null), client("admin@example.com", null)), REQUEST_ID);
    Requester.Attribution undeclared =
        Requester.of(null, context(null, client("admin@example.com", null)), REQUEST_ID);

    assertThat(forged).isEqualTo(new Requester.Attribution("alice", "alice", null));
    assertThat(both).isEqualTo(new Requester.Attribution("alice", "alice", "cognito:id-1"));
    assertThat(undeclared.requestedBy())
        .isEqualTo("unattributed (lambda request " + REQUEST_ID + ")");
    assertThat(undeclared.invokedBy()).isNull();
  }

  @Test
  void withoutADeclaredName_theEntryIsUnattributed_namingTheLambdaRequest() {
    assertThat(Requester.of("bob", context(null, null), REQUEST_ID))
        .isEqualTo(new Requester.Attribution("bob", "bob", null));
    assertThat(Requester.of(null, context(cognito(" ", null), client("", null)), REQUEST_ID))
        .isEqualTo(
            new Requester.Attribution(
                "unattributed (lambda request " + REQUEST_ID + ")", null, null));
    assertThat(Requester.of(null, context(cognito("id-1", null), null), REQUEST_ID))
        .isEqualTo(
            new Requester.Attribution(
                "unattributed (lambda request " + REQUEST_ID + ")", null, "cognito:id-1"));
  }

  @Test
  void theAuditInfo_carriesAllThree() {
    var audit =
        Requester.of("alice", context(cognito("id-1", null), null), REQUEST_ID)
            .audit(REQUEST_ID, "topic recreated");

    assertThat(audit.requestedBy()).isEqualTo("alice");
    assertThat(audit.claimedBy()).isEqualTo("alice");
    assertThat(audit.invokedBy()).isEqualTo("cognito:id-1");
    assertThat(audit.requestId()).isEqualTo(REQUEST_ID);
  }

  private static CognitoIdentity cognito(String id, String pool) {
    return new CognitoIdentity() {
      @Override
      public String getIdentityId() {
        return id;
      }

      @Override
      public String getIdentityPoolId() {
        return pool;
      }
    };
  }

  private static ClientContext client(String installation, String title) {
    Client client =
        new Client() {
          @Override
          public String getInstallationId() {
            return installation;
          }

          @Override
          public String getAppTitle() {
            return title;
          }

          @Override
          public String getAppVersionName() {
            return null;
          }

          @Override
          public String getAppVersionCode() {
            return null;
          }

          @Override
          public String getAppPackageName() {
            return null;
          }
        };
    return new ClientContext() {
      @Override
      public Client getClient() {
        return client;
      }

      @Override
      public Map<String, String> getCustom() {
        return Map.of();
      }

      @Override
      public Map<String, String> getEnvironment() {
        return Map.of();
      }
    };
  }

  private static Context context(CognitoIdentity identity, ClientContext clientContext) {
    return new Context() {
      @Override
      public String getAwsRequestId() {
        return REQUEST_ID;
      }

      @Override
      public String getLogGroupName() {
        return null;
      }

      @Override
      public String getLogStreamName() {
        return null;
      }

      @Override
      public String getFunctionName() {
        return "reprocessor";
      }

      @Override
      public String getFunctionVersion() {
        return "$LATEST";
      }

      @Override
      public String getInvokedFunctionArn() {
        return null;
      }

      @Override
      public CognitoIdentity getIdentity() {
        return identity;
      }

      @Override
      public ClientContext getClientContext() {
        return clientContext;
      }

      @Override
      public int getRemainingTimeInMillis() {
        return 60_000;
      }

      @Override
      public int getMemoryLimitInMB() {
        return 1024;
      }

      @Override
      public LambdaLogger getLogger() {
        return null;
      }
    };
  }
}

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
 * Whom the audit holds responsible: an identity the invocation carries beats the name the request
 * claims, which is kept beside it. (The context here is plain data, as the runtime client builds
 * it; the packaged jar under the runtime client is tested in {@code AuditIdentityTest}.)
 */
class RequesterTest {
  private static final String REQUEST_ID = "7a1c2f0e-5b9d-4e31-9f0a-2d6c8b1e4a77";

  @Test
  void aCognitoIdentity_isWhoAsked_andTheClaimedNameIsKeptBesideIt() {
    Requester.Attribution a =
        Requester.of(
            "alice@example.com",
            context(cognito("eu-west-1:id-1", "eu-west-1:pool"), null),
            REQUEST_ID);

    assertThat(a.requestedBy()).isEqualTo("cognito:eu-west-1:pool/eu-west-1:id-1");
    assertThat(a.claimedBy()).isEqualTo("alice@example.com");
    assertThat(a.invokedBy()).isEqualTo("cognito:eu-west-1:pool/eu-west-1:id-1");
  }

  @Test
  void aClientContextsInstallation_beatsAClaimedName_andCognitoBeatsIt() {
    Requester.Attribution client =
        Requester.of("alice", context(null, client("laptop-42", "outbox-ops")), REQUEST_ID);
    Requester.Attribution both =
        Requester.of(
            "alice", context(cognito("id-1", null), client("laptop-42", null)), REQUEST_ID);

    assertThat(client.requestedBy()).isEqualTo("client:laptop-42 (outbox-ops)");
    assertThat(client.claimedBy()).isEqualTo("alice");
    assertThat(both.requestedBy()).isEqualTo("cognito:id-1");
    assertThat(both.invokedBy()).isEqualTo("cognito:id-1; client:laptop-42");
  }

  @Test
  void withoutAnIdentity_theClaimedNameIsWhoAsked_elseTheLambdaRequest() {
    assertThat(Requester.of("bob", context(null, null), REQUEST_ID))
        .isEqualTo(new Requester.Attribution("bob", "bob", null));
    assertThat(Requester.of(null, context(cognito(" ", null), client("", null)), REQUEST_ID))
        .isEqualTo(
            new Requester.Attribution(
                "unattributed (lambda request " + REQUEST_ID + ")", null, null));
  }

  @Test
  void theAuditInfo_carriesAllThree() {
    var audit =
        Requester.of("alice", context(cognito("id-1", null), null), REQUEST_ID)
            .audit(REQUEST_ID, "topic recreated");

    assertThat(audit.requestedBy()).isEqualTo("cognito:id-1");
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

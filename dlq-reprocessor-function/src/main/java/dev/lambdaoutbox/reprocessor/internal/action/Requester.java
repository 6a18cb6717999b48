package dev.lambdaoutbox.reprocessor.internal.action;

import com.amazonaws.services.lambda.runtime.Client;
import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import dev.lambdaoutbox.store.deadletter.AuditInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * Who the audit holds responsible for a request, and what it records beside that:
 *
 * <ul>
 *   <li>{@code invokedBy}: the identity the invocation carries, which Lambda sets from the call and
 *       not from the body: the Cognito identity ({@code cognito:<pool>/<identity>}, present when
 *       the caller signed with Cognito identity-pool credentials) and the client context's
 *       installation ({@code client:<installation id>}, set by the caller with {@code
 *       --client-context}).
 *   <li>{@code claimedBy}: the request's {@code requestedBy}, whatever the caller wrote.
 *   <li>{@code requestedBy}: the first identity the invocation carries, Cognito's before the client
 *       context's (a claimed name never overrides it), else the claimed name, else {@code
 *       unattributed (lambda request <awsRequestId>)}.
 * </ul>
 *
 * <p>The request id is the Lambda request id: CloudTrail's data event for the {@code Invoke} call
 * carries it as {@code requestID}, with the IAM principal that made the call.
 */
public final class Requester {
  private static final int MAX_PART = 200;

  private Requester() {}

  /** The audit's record of who asked, without the reason. */
  public record Attribution(String requestedBy, String claimedBy, String invokedBy) {
    /** The audit info of an action with {@code reason}. */
    public AuditInfo audit(String requestId, String reason) {
      return new AuditInfo(requestId, requestedBy, reason, claimedBy, invokedBy);
    }
  }

  public static Attribution of(String claimedBy, Context context, String requestId) {
    List<String> identities = identities(context);
    String invokedBy =
        identities.isEmpty() ? null : cut(String.join("; ", identities), AuditInfo.MAX_INVOKED_BY);
    String requestedBy;
    if (!identities.isEmpty()) {
      requestedBy = cut(identities.get(0), AuditInfo.MAX_REQUESTED_BY);
    } else if (claimedBy != null) {
      requestedBy = claimedBy;
    } else {
      requestedBy = "unattributed (lambda request " + requestId + ")";
    }
    return new Attribution(requestedBy, claimedBy, invokedBy);
  }

  /** The identities {@code context} carries, Cognito's first; none when it carries none. */
  private static List<String> identities(Context context) {
    List<String> parts = new ArrayList<>();
    if (context == null) {
      return parts;
    }
    CognitoIdentity cognito = context.getIdentity();
    if (cognito != null && present(cognito.getIdentityId())) {
      parts.add(
          "cognito:"
              + (present(cognito.getIdentityPoolId())
                  ? cut(cognito.getIdentityPoolId(), MAX_PART) + "/"
                  : "")
              + cut(cognito.getIdentityId(), MAX_PART));
    }
    ClientContext clientContext = context.getClientContext();
    Client client = clientContext == null ? null : clientContext.getClient();
    if (client != null && present(client.getInstallationId())) {
      parts.add(
          "client:"
              + cut(client.getInstallationId(), MAX_PART)
              + (present(client.getAppTitle())
                  ? " (" + cut(client.getAppTitle(), MAX_PART / 2) + ")"
                  : ""));
    }
    return parts;
  }

  private static boolean present(String value) {
    return value != null && !value.isBlank();
  }

  private static String cut(String value, int max) {
    String stripped = value.strip();
    return stripped.length() <= max ? stripped : stripped.substring(0, max);
  }
}

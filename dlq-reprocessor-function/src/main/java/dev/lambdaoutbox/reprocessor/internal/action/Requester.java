package dev.lambdaoutbox.reprocessor.internal.action;

import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import dev.lambdaoutbox.store.model.audit.AuditInfo;

/**
 * What the audit records of who asked, without the reason. Each part says where it comes from, so
 * that no part the caller writes passes for one it cannot:
 *
 * <ul>
 *   <li>{@code requestedBy}: the request's {@code requestedBy} as declared, whatever it says; or
 *       {@code unattributed (lambda request <awsRequestId>)} when it declares none. The caller
 *       writes it: it is a name, not a proof.
 *   <li>{@code claimedBy}: the same declared name, or null when there is none.
 *   <li>{@code invokedBy}: the Cognito identity ({@code cognito:<pool>/<identity>}) that Lambda
 *       took from the credentials the call was signed with, when they were Cognito identity-pool
 *       credentials; else null. The client context ({@code --client-context}) is not recorded: the
 *       caller writes it as freely as {@code requestedBy}.
 * </ul>
 *
 * <p>Who made the call is in CloudTrail: the data event of the {@code Invoke} call carries the IAM
 * principal in {@code userIdentity} and the Lambda request id, which the audit records as the
 * request id, in {@code requestID}.
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

  public static Attribution of(String declaredBy, Context context, String requestId) {
    String requestedBy =
        declaredBy != null ? declaredBy : "unattributed (lambda request " + requestId + ")";
    return new Attribution(requestedBy, declaredBy, cognitoIdentity(context));
  }

  /** The Cognito identity Lambda took from the call's credentials; null when there is none. */
  private static String cognitoIdentity(Context context) {
    CognitoIdentity cognito = context == null ? null : context.getIdentity();
    if (cognito == null || !present(cognito.getIdentityId())) {
      return null;
    }
    String identity =
        "cognito:"
            + (present(cognito.getIdentityPoolId())
                ? cut(cognito.getIdentityPoolId(), MAX_PART) + "/"
                : "")
            + cut(cognito.getIdentityId(), MAX_PART);
    return cut(identity, AuditInfo.MAX_INVOKED_BY);
  }

  private static boolean present(String value) {
    return value != null && !value.isBlank();
  }

  private static String cut(String value, int max) {
    String stripped = value.strip();
    return stripped.length() <= max ? stripped : stripped.substring(0, max);
  }
}

package dev.lambdaoutbox.reprocessor.internal;

import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;

/**
 * Who the audit records as the requester: the request's {@code requestedBy}; else the Cognito
 * identity the invocation carries (only invocations through the mobile SDK have one); else {@code
 * unattributed (lambda request <awsRequestId>)}, which the function's CloudTrail data events can
 * resolve to the IAM principal that invoked it.
 */
public final class Requester {
  private Requester() {}

  public static String of(String requestedBy, Context context, String requestId) {
    if (requestedBy != null) {
      return requestedBy;
    }
    CognitoIdentity identity = context == null ? null : context.getIdentity();
    if (identity != null
        && identity.getIdentityId() != null
        && !identity.getIdentityId().isBlank()) {
      return "cognito:" + identity.getIdentityId();
    }
    return "unattributed (lambda request " + requestId + ")";
  }
}

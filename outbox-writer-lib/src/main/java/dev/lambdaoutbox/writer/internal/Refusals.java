package dev.lambdaoutbox.writer.internal;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What a refused wake-up means, and what to change; from Lambda's answer alone. */
final class Refusals {
  /**
   * Who Lambda says called, in its AccessDeniedException: "User: arn:aws:sts::123456789012:
   * assumed-role/orders-app/session is not authorized to perform: lambda:InvokeFunction on ...".
   */
  private static final Pattern CALLER = Pattern.compile("User: (\\S+) is not authorized");

  /** The role of an assumed-role session ARN: its partition, account and name. */
  private static final Pattern ASSUMED_ROLE =
      Pattern.compile("^arn:(aws[a-zA-Z-]*):sts::(\\d{12}):assumed-role/([^/]+)/.*$");

  private static final Pattern FUNCTION_ACCOUNT =
      Pattern.compile("^arn:aws[a-zA-Z-]*:lambda:[a-z0-9-]+:(\\d{12}):function:.*$");

  private Refusals() {}

  /**
   * What Lambda refused and what to change.
   *
   * @param message Lambda's message, may be null
   */
  static String describe(String functionName, int status, String code, String message) {
    String what = "Lambda refused to invoke " + functionName + " (" + status + " " + code + ")";
    if (status == 404 || "ResourceNotFoundException".equals(code)) {
      return what
          + ": no such function or alias; set the waker's functionName to the stack's"
          + " WakeUpFunctionArn output";
    }
    if (status == 403 || "AccessDeniedException".equals(code)) {
      return what + ": " + notAllowed(functionName, message);
    }
    if (status == 429) {
      return what + ": throttled, the poller's concurrency is taken";
    }
    return what;
  }

  /**
   * Advice that holds whether or not the stack names a role yet: the stack allows exactly the role
   * its WakeUpInvokerRoleArn names, so the caller's role must be that one (a role set to another
   * role, or not set, both refuse), and a role of another account needs its own policy too.
   */
  private static String notAllowed(String functionName, String message) {
    Matcher caller = CALLER.matcher(message == null ? "" : message);
    if (!caller.find()) {
      return "the credentials this application calls Lambda with may not invoke it; the stack's"
          + " WakeUpInvokerRoleArn must name their IAM role, and a role of another account than"
          + " the poller's must also attach the stack's WakeUpInvokerPolicy output";
    }
    String arn = caller.group(1);
    Matcher role = ASSUMED_ROLE.matcher(arn);
    if (!role.matches()) {
      return "it was called as "
          + arn
          + ", not as an IAM role; run the application with the role the stack's"
          + " WakeUpInvokerRoleArn names";
    }
    String roleArn = "arn:" + role.group(1) + ":iam::" + role.group(2) + ":role/" + role.group(3);
    String advice =
        "this application calls as the role "
            + role.group(3)
            + " of account "
            + role.group(2)
            + "; deploy the stack with WakeUpInvokerRoleArn "
            + roleArn
            + " (with its path, if it has one), the one role it lets invoke the poller";
    Matcher function = FUNCTION_ACCOUNT.matcher(functionName);
    if (!function.matches() || !function.group(1).equals(role.group(2))) {
      advice +=
          ", and attach the stack's WakeUpInvokerPolicy output to that role"
              + (function.matches()
                  ? " (it is in another account than the poller's, " + function.group(1) + ")"
                  : " if it is in another account than the poller's");
    } else {
      advice +=
          "; if the stack names it already, a Deny in the role's policies, its permissions"
              + " boundary or an organization policy refuses the call";
    }
    return advice;
  }
}

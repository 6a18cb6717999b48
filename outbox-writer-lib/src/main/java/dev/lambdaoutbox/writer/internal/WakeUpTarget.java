package dev.lambdaoutbox.writer.internal;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The poller function a waker invokes, as Lambda's {@code Invoke} takes it (a name, a partial ARN
 * or an ARN, with a qualifier), held to the one target the stack lets an application invoke: the
 * poller's alias {@code live}. The stack's resource-based statement and its {@code
 * WakeUpInvokerPolicy} name the alias's ARN only, so Lambda refuses an invocation of the function
 * unqualified, or of a version, whatever the caller's role. Refused here, at build, with the name
 * to use instead, rather than by Lambda at every commit.
 */
public final class WakeUpTarget {
  /** The alias the stack's schedule and wake-ups invoke ({@code AutoPublishAlias}). */
  public static final String ALIAS = "live";

  /** A name, a partial ARN or an ARN, each with an optional {@code :qualifier}. */
  private static final Pattern FUNCTION =
      Pattern.compile(
          "^((?:arn:aws[a-zA-Z-]*:lambda:[a-z0-9-]+:)?(?:\\d{12}:function:)?[a-zA-Z0-9_-]+)"
              + "(?::([a-zA-Z0-9_$-]+))?$");

  private WakeUpTarget() {}

  /**
   * {@code functionName} when it names the alias {@link #ALIAS}.
   *
   * @throws IllegalArgumentException naming {@code functionName} and the value to give instead
   */
  public static String requireAlias(String functionName) {
    Matcher m = FUNCTION.matcher(functionName);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "functionName: '"
              + functionName
              + "' is not a Lambda function name or ARN; give the stack's WakeUpFunctionArn output"
              + " (arn:aws:lambda:REGION:ACCOUNT:function:NAME:"
              + ALIAS
              + ")");
    }
    String qualifier = m.group(2);
    if (ALIAS.equals(qualifier)) {
      return functionName;
    }
    String what =
        qualifier == null
            ? "names the poller function without its alias"
            : "names the poller's version or alias '" + qualifier + "'";
    throw new IllegalArgumentException(
        "functionName: '"
            + functionName
            + "' "
            + what
            + "; the stack lets the application invoke its alias "
            + ALIAS
            + " only, so Lambda would refuse every wake-up: give '"
            + m.group(1)
            + ":"
            + ALIAS
            + "' (the stack's WakeUpFunctionArn output)");
  }
}

package dev.lambdaoutbox.template;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * IAM's decision on a request, from the statements of the policies that apply, as AWS documents it
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html): an
 * explicit {@code Deny} wins, else an {@code Allow} that matches allows, else the request is
 * implicitly denied. A statement matches when its {@code Action} (or {@code NotAction}), {@code
 * Resource} (or {@code NotResource}), {@code Principal} (resource-based policies) and every
 * condition match; actions and resources take {@code *} and {@code ?}, actions case-insensitively
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_resource.html).
 * Only the condition operators listed here are known: a policy with another one is refused, not
 * guessed at.
 *
 * <p>{@link #problems} says what IAM refuses in a policy document before anything is evaluated
 * (CloudFormation then fails the stack with {@code MalformedPolicyDocument}): no statement, a
 * statement without effect, action or resource, a resource that is neither {@code *} nor an ARN
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_grammar.html).
 */
final class IamEvaluator {
  /** What IAM decides. */
  enum Decision {
    ALLOWED,
    IMPLICITLY_DENIED,
    EXPLICITLY_DENIED
  }

  /**
   * One request to authorize: who asks (an ARN, for resource-based policies), the action, the
   * resource and the request's condition keys (e.g. {@code kms:ViaService}).
   */
  record Request(String principal, String action, String resource, Map<String, String> context) {
    Request {
      context = Map.copyOf(context);
    }

    static Request of(String action, String resource) {
      return new Request(null, action, resource, Map.of());
    }

    @Override
    public String toString() {
      return action + " on " + resource + (context.isEmpty() ? "" : " " + context);
    }
  }

  /** The operators whose value is compared as text; the others below. */
  private static final Set<String> STRING_OPERATORS =
      Set.of(
          "StringEquals",
          "StringNotEquals",
          "StringEqualsIgnoreCase",
          "StringNotEqualsIgnoreCase",
          "StringLike",
          "StringNotLike",
          "ArnEquals",
          "ArnNotEquals",
          "ArnLike",
          "ArnNotLike");

  private IamEvaluator() {}

  /** The decision of {@code statements} (of every policy that applies) on {@code request}. */
  static Decision decide(List<Map<String, Object>> statements, Request request) {
    boolean allowed = false;
    for (Map<String, Object> statement : statements) {
      if (!matches(statement, request)) {
        continue;
      }
      if ("Deny".equals(statement.get("Effect"))) {
        return Decision.EXPLICITLY_DENIED;
      }
      allowed = true;
    }
    return allowed ? Decision.ALLOWED : Decision.IMPLICITLY_DENIED;
  }

  /**
   * Whether {@code request} is allowed within one account: an identity-based policy or a
   * resource-based one (whose statements name principals) allows it and no statement of either
   * denies it. Across accounts both would have to allow it: see {@link #allowedAcrossAccounts}.
   */
  static boolean allowedInOneAccount(
      List<Map<String, Object>> identity, List<Map<String, Object>> resource, Request request) {
    List<Map<String, Object>> all = new ArrayList<>(identity);
    all.addAll(resource);
    return decide(all, request) == Decision.ALLOWED;
  }

  /** Whether both the caller's account (its identity policy) and the resource's allow it. */
  static boolean allowedAcrossAccounts(
      List<Map<String, Object>> identity, List<Map<String, Object>> resource, Request request) {
    return decide(identity, request) == Decision.ALLOWED
        && decide(resource, request) == Decision.ALLOWED;
  }

  /** Whether {@code statement} applies to {@code request}. */
  static boolean matches(Map<String, Object> statement, Request request) {
    if (statement.containsKey("Principal")
        && !principalMatches(statement.get("Principal"), request)) {
      return false;
    }
    if (statement.containsKey("NotPrincipal")) {
      throw new IllegalArgumentException("NotPrincipal is not evaluated here: " + statement);
    }
    boolean action =
        statement.containsKey("NotAction")
            ? strings(statement.get("NotAction")).stream()
                .noneMatch(a -> wildcard(a, request.action(), true))
            : strings(statement.get("Action")).stream()
                .anyMatch(a -> wildcard(a, request.action(), true));
    boolean resource =
        statement.containsKey("NotResource")
            ? strings(statement.get("NotResource")).stream()
                .noneMatch(r -> wildcard(r, request.resource(), false))
            : strings(statement.get("Resource")).stream()
                .anyMatch(r -> wildcard(r, request.resource(), false));
    return action && resource && conditionsHold(statement.get("Condition"), request.context());
  }

  private static boolean principalMatches(Object principal, Request request) {
    if ("*".equals(principal)) {
      return true;
    }
    if (!(principal instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException("a Principal this evaluator does not read: " + principal);
    }
    for (Object value : strings(map.get("AWS"))) {
      String p = String.valueOf(value);
      if (p.equals("*") || p.equals(request.principal())) {
        return true;
      }
      // An account (its id or its root) stands for every principal of that account.
      String account =
          p.matches("[0-9]{12}")
              ? p
              : p.replaceFirst("^arn:aws[a-z-]*:iam::([0-9]{12}):root$", "$1");
      if (account.matches("[0-9]{12}")
          && request.principal() != null
          && request.principal().split(":").length > 4
          && request.principal().split(":")[4].equals(account)) {
        return true;
      }
    }
    return false;
  }

  private static boolean conditionsHold(Object condition, Map<String, String> context) {
    if (condition == null) {
      return true;
    }
    Map<String, String> keys = new LinkedHashMap<>();
    context.forEach((k, v) -> keys.put(k.toLowerCase(Locale.ROOT), v));
    for (Map.Entry<String, Object> operator : SamTemplate.map(condition).entrySet()) {
      String name = operator.getKey();
      boolean ifExists = name.endsWith("IfExists");
      String base = ifExists ? name.substring(0, name.length() - "IfExists".length()) : name;
      for (Map.Entry<String, Object> test : SamTemplate.map(operator.getValue()).entrySet()) {
        String actual = keys.get(test.getKey().toLowerCase(Locale.ROOT));
        List<String> expected = strings(test.getValue());
        if (!holds(base, ifExists, actual, expected)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean holds(
      String operator, boolean ifExists, String actual, List<String> expected) {
    if (operator.equals("Null")) {
      return expected.stream().anyMatch(e -> Boolean.parseBoolean(e) == (actual == null));
    }
    if (operator.equals("Bool")) {
      if (actual == null) {
        return ifExists;
      }
      return expected.stream().anyMatch(e -> e.equalsIgnoreCase(actual));
    }
    if (!STRING_OPERATORS.contains(operator)) {
      throw new IllegalArgumentException(
          "condition operator " + operator + " is not evaluated here; teach IamEvaluator");
    }
    boolean negated = operator.contains("Not");
    if (actual == null) {
      return ifExists || negated;
    }
    boolean like = operator.endsWith("Like");
    boolean ignoreCase = operator.endsWith("IgnoreCase");
    boolean any =
        expected.stream()
            .anyMatch(
                e ->
                    like
                        ? wildcard(e, actual, false)
                        : ignoreCase ? e.equalsIgnoreCase(actual) : e.equals(actual));
    return negated != any;
  }

  /**
   * IAM's match of a pattern with {@code *} (any run, {@code :} and {@code /} included) and {@code
   * ?}.
   */
  static boolean wildcard(String pattern, String value, boolean ignoreCase) {
    StringBuilder regex = new StringBuilder();
    for (char c : pattern.toCharArray()) {
      switch (c) {
        case '*' -> regex.append(".*");
        case '?' -> regex.append('.');
        default -> regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(
            regex.toString(),
            ignoreCase ? Pattern.CASE_INSENSITIVE | Pattern.DOTALL : Pattern.DOTALL)
        .matcher(value)
        .matches();
  }

  /**
   * What IAM refuses in {@code document} (a policy's {@code PolicyDocument}), each said with the
   * statement it is about; empty when IAM takes it.
   */
  static List<String> problems(Map<String, Object> document) {
    List<String> problems = new ArrayList<>();
    List<Map<String, Object>> statements = statements(document.get("Statement"));
    if (statements.isEmpty()) {
      problems.add("the policy has no statement (IAM: MalformedPolicyDocument)");
    }
    for (Map<String, Object> s : statements) {
      String sid = s.get("Sid") == null ? String.valueOf(s) : String.valueOf(s.get("Sid"));
      if (!"Allow".equals(s.get("Effect")) && !"Deny".equals(s.get("Effect"))) {
        problems.add(sid + ": Effect is neither Allow nor Deny");
      }
      List<String> actions =
          strings(s.containsKey("NotAction") ? s.get("NotAction") : s.get("Action"));
      if (actions.isEmpty()) {
        problems.add(sid + ": no action");
      }
      List<String> resources =
          strings(s.containsKey("NotResource") ? s.get("NotResource") : s.get("Resource"));
      if (resources.isEmpty() && !s.containsKey("Principal")) {
        problems.add(sid + ": no resource");
      }
      for (String r : resources) {
        if (!r.equals("*") && !r.startsWith("arn:")) {
          problems.add(sid + ": resource '" + r + "' is neither * nor an ARN");
        }
      }
    }
    return problems;
  }

  /** A {@code Statement}, one or a list, as a list. */
  static List<Map<String, Object>> statements(Object statement) {
    List<Map<String, Object>> list = new ArrayList<>();
    if (statement instanceof List<?> items) {
      items.forEach(s -> list.add(SamTemplate.map(s)));
    } else if (statement != null) {
      list.add(SamTemplate.map(statement));
    }
    return list;
  }

  /** A policy element that is one string or a list of them, as a list. */
  static List<String> strings(Object value) {
    if (value instanceof List<?> list) {
      return list.stream().map(String::valueOf).toList();
    }
    return value == null ? List.of() : List.of(String.valueOf(value));
  }
}

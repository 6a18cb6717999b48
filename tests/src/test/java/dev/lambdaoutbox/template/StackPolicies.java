package dev.lambdaoutbox.template;

import static dev.lambdaoutbox.template.IamEvaluator.strings;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The IAM policies of a resolved stack: what each function's role holds (its inline policies, the
 * stack's managed policies and {@code AWS::IAM::Policy} resources attached to it, and the
 * AWS-managed policies it names), the resource-based statements of the stack's {@code
 * AWS::Lambda::Permission}s, and every policy document the stack creates.
 */
final class StackPolicies {
  static final String LOGS = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole";
  static final String VPC_NETWORKING =
      "arn:aws:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole";
  static final String NETWORK_INTERFACES =
      "arn:aws:iam::aws:policy/service-role/AWSLambdaENIManagementAccess";

  /**
   * The AWS-managed policies the roles hold, as AWS publishes them
   * (https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSLambdaBasicExecutionRole.html,
   * .../AWSLambdaVPCAccessExecutionRole.html, .../AWSLambdaENIManagementAccess.html): logs, and the
   * network interfaces of a function in a VPC.
   */
  private static final Map<String, List<Map<String, Object>>> AWS_MANAGED =
      Map.of(
          LOGS,
          List.of(
              allow(List.of("logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"))),
          VPC_NETWORKING,
          List.of(
              allow(
                  List.of(
                      "logs:CreateLogGroup",
                      "logs:CreateLogStream",
                      "logs:PutLogEvents",
                      "ec2:CreateNetworkInterface",
                      "ec2:DescribeNetworkInterfaces",
                      "ec2:DescribeSubnets",
                      "ec2:DeleteNetworkInterface",
                      "ec2:AssignPrivateIpAddresses",
                      "ec2:UnassignPrivateIpAddresses"))),
          NETWORK_INTERFACES,
          List.of(
              allow(
                  List.of(
                      "ec2:CreateNetworkInterface",
                      "ec2:DescribeNetworkInterfaces",
                      "ec2:DescribeSubnets",
                      "ec2:DeleteNetworkInterface",
                      "ec2:AssignPrivateIpAddresses",
                      "ec2:UnassignPrivateIpAddresses"))));

  private StackPolicies() {}

  private static Map<String, Object> allow(List<String> actions) {
    return Map.of("Effect", "Allow", "Action", actions, "Resource", "*");
  }

  /** Every policy statement of the stack: the IAM resources' and any function's own. */
  static List<Map<String, Object>> statements(SamTemplate.Resolved stack) {
    List<Map<String, Object>> statements = new ArrayList<>();
    stack
        .resourcesOfType("AWS::Serverless::Function")
        .keySet()
        .forEach(function -> statements.addAll(functionStatements(stack, function)));
    for (String type : List.of("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy")) {
      stack
          .resourcesOfType(type)
          .values()
          .forEach(
              r -> statements.addAll(documentStatements(SamTemplate.map(r.get("Properties")))));
    }
    stack
        .resourcesOfType("AWS::IAM::Role")
        .values()
        .forEach(r -> statements.addAll(inlineStatements(SamTemplate.map(r.get("Properties")))));
    return statements;
  }

  /**
   * A function's statements: those of its role's inline policies and of the stack's managed
   * policies the role holds. A function's own {@code Policies}, a role that is not the stack's, or
   * a managed policy that is neither the stack's nor one of the AWS-managed ones known here fails,
   * so that no new permission goes unchecked.
   */
  static List<Map<String, Object>> functionStatements(SamTemplate.Resolved stack, String function) {
    Map<String, Object> role = role(stack, function);
    List<Map<String, Object>> statements = new ArrayList<>(inlineStatements(role));
    String roleRef = "arn-of-" + roleId(stack, function);
    for (Map<String, Object> policy : stack.resourcesOfType("AWS::IAM::Policy").values()) {
      Map<String, Object> properties = SamTemplate.map(policy.get("Properties"));
      if (strings(properties.get("Roles")).contains(roleRef)) {
        statements.addAll(documentStatements(properties));
      }
    }
    for (String arn : strings(role.get("ManagedPolicyArns"))) {
      if (arn.startsWith("arn-of-")) {
        String id = arn.substring("arn-of-".length());
        Map<String, Object> policy = stack.resources().get(id);
        assertThat(policy).as("%s's managed policy %s", function, id).isNotNull();
        assertThat(policy.get("Type")).isEqualTo("AWS::IAM::ManagedPolicy");
        statements.addAll(documentStatements(SamTemplate.map(policy.get("Properties"))));
      } else if (!AWS_MANAGED.containsKey(arn)) {
        throw new AssertionError(
            function + " holds a managed policy this test cannot read, so cannot check: " + arn);
      }
    }
    return statements;
  }

  /** Everything the function's role may do: its statements and the AWS-managed policies'. */
  static List<Map<String, Object>> roleStatements(SamTemplate.Resolved stack, String function) {
    List<Map<String, Object>> statements = new ArrayList<>(functionStatements(stack, function));
    awsManagedPolicies(stack, function).forEach(arn -> statements.addAll(AWS_MANAGED.get(arn)));
    return statements;
  }

  /** The AWS-managed policies a function's role holds. */
  static List<String> awsManagedPolicies(SamTemplate.Resolved stack, String function) {
    return strings(role(stack, function).get("ManagedPolicyArns")).stream()
        .filter(arn -> !arn.startsWith("arn-of-"))
        .toList();
  }

  /**
   * The statements the stack's {@code AWS::Lambda::Permission}s add to the resource-based policies
   * of its functions: the principal may take the action on the function, version or alias named.
   */
  static List<Map<String, Object>> lambdaPermissions(SamTemplate.Resolved stack) {
    List<Map<String, Object>> statements = new ArrayList<>();
    for (Map<String, Object> permission :
        stack.resourcesOfType("AWS::Lambda::Permission").values()) {
      Map<String, Object> p = SamTemplate.map(permission.get("Properties"));
      String principal = String.valueOf(p.get("Principal"));
      Map<String, Object> statement = new LinkedHashMap<>();
      statement.put("Effect", "Allow");
      statement.put(
          "Principal",
          principal.endsWith(".amazonaws.com")
              ? Map.of("Service", principal)
              : Map.of("AWS", principal));
      statement.put("Action", p.get("Action"));
      statement.put("Resource", p.get("FunctionName"));
      statements.add(statement);
    }
    return statements;
  }

  /**
   * Every policy document the stack creates, by where it is ({@code Role/PolicyName}, or the policy
   * resource's logical id).
   */
  static Map<String, Map<String, Object>> documents(SamTemplate.Resolved stack) {
    Map<String, Map<String, Object>> documents = new LinkedHashMap<>();
    stack
        .resourcesOfType("AWS::IAM::Role")
        .forEach(
            (id, role) -> {
              Object policies = SamTemplate.map(role.get("Properties")).get("Policies");
              for (Object p : policies == null ? List.of() : (List<?>) policies) {
                Map<String, Object> policy = SamTemplate.map(p);
                documents.put(
                    id + "/" + policy.get("PolicyName"),
                    SamTemplate.map(policy.get("PolicyDocument")));
              }
            });
    for (String type : List.of("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy")) {
      stack
          .resourcesOfType(type)
          .forEach(
              (id, r) ->
                  documents.put(
                      id,
                      SamTemplate.map(SamTemplate.map(r.get("Properties")).get("PolicyDocument"))));
    }
    return documents;
  }

  /** The logical id of the function's role. */
  static String roleId(SamTemplate.Resolved stack, String function) {
    String role = String.valueOf(stack.properties(function).get("Role"));
    return role.substring("getatt-of-".length(), role.length() - ".Arn".length());
  }

  /** The properties of the function's role: one of the stack's, which only Lambda may assume. */
  static Map<String, Object> role(SamTemplate.Resolved stack, String function) {
    Map<String, Object> properties = stack.properties(function);
    assertThat(properties)
        .as("%s: its permissions are its role's, not SAM policies", function)
        .doesNotContainKey("Policies");
    String role = String.valueOf(properties.get("Role"));
    assertThat(role).as("%s's role", function).startsWith("getatt-of-").endsWith(".Arn");
    String id = role.substring("getatt-of-".length(), role.length() - ".Arn".length());
    Map<String, Object> resource = stack.resources().get(id);
    assertThat(resource).as("%s's role %s", function, id).isNotNull();
    assertThat(resource.get("Type")).isEqualTo("AWS::IAM::Role");
    Map<String, Object> roleProperties = SamTemplate.map(resource.get("Properties"));
    assertThat(
            IamEvaluator.statements(
                SamTemplate.map(roleProperties.get("AssumeRolePolicyDocument")).get("Statement")))
        .as("who may assume %s", id)
        .containsExactly(
            Map.of(
                "Effect", "Allow",
                "Principal", Map.of("Service", "lambda.amazonaws.com"),
                "Action", "sts:AssumeRole"));
    return roleProperties;
  }

  /** The statements of a role's inline {@code Policies}. */
  private static List<Map<String, Object>> inlineStatements(Map<String, Object> roleProperties) {
    List<Map<String, Object>> statements = new ArrayList<>();
    Object policies = roleProperties.get("Policies");
    for (Object p : policies == null ? List.of() : (List<?>) policies) {
      statements.addAll(documentStatements(SamTemplate.map(p)));
    }
    return statements;
  }

  /** The statements of a policy's {@code PolicyDocument}. */
  private static List<Map<String, Object>> documentStatements(Map<String, Object> policy) {
    return IamEvaluator.statements(SamTemplate.map(policy.get("PolicyDocument")).get("Statement"));
  }
}

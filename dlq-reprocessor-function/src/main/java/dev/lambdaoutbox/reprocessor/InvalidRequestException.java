package dev.lambdaoutbox.reprocessor;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.core.JsonSupport;

/**
 * The request was refused before anything was touched. The message is the JSON error the caller
 * sees as the Lambda's {@code errorMessage}:
 *
 * <pre>{@code
 * {"error":"InvalidRequest","field":"ids[2]","message":"ids[2]: 'abc' is not a UUID ...",
 *  "nothingChanged":true}
 * }</pre>
 */
public final class InvalidRequestException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String field;
  private final String problem;

  /**
   * @param field the request field at fault, as a path ({@code filter.deadAtFrom}, {@code ids[3]}),
   *     or {@code body} for the request as a whole
   * @param problem what is wrong with it and what would be accepted
   */
  public InvalidRequestException(String field, String problem) {
    super(json(field, problem));
    this.field = field;
    this.problem = problem;
  }

  public String field() {
    return field;
  }

  public String problem() {
    return problem;
  }

  private static String json(String field, String problem) {
    ObjectNode error = JsonSupport.mapper().createObjectNode();
    error.put("error", "InvalidRequest");
    error.put("field", field);
    error.put("message", field + ": " + problem);
    error.put("nothingChanged", true);
    return error.toString();
  }
}

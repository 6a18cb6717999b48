package dev.lambdaoutbox.poller.internal.publish;

import java.util.Map;
import java.util.Set;

/**
 * What a batch call answered, as SNS and SQS both shape it: the ids of the entries it accepted
 * ({@code successful()}) and the failed entries by id ({@code failed()}).
 */
public record BatchResponse(Set<String> successful, Map<String, EntryError> failed) {
  public BatchResponse {
    successful = Set.copyOf(successful);
    failed = Map.copyOf(failed);
  }

  /** One entry of {@code failed()}. */
  public record EntryError(String code, String message, Boolean senderFault) {}
}

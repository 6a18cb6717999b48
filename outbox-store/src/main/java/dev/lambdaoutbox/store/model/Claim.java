package dev.lambdaoutbox.store.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What one {@link OutboxStore#claim} took.
 *
 * @param messages the rows to publish, leased to the owner, oldest first
 * @param unreadable rows that could not be read: already dead-lettered in the claim's transaction
 * @param superseded older dead letters that unreadable rows replaced (their ids were reused)
 * @param parked with {@link Ordering#AGGREGATE}: per unreadable row that parked its aggregate (by
 *     its dead letter id), how many events behind it parked; empty otherwise
 * @param stoppedAtBudget the claim ended at its result budget in bytes with due rows left: short as
 *     it is, the backlog is not drained
 */
public record Claim(
    List<OutboxMessage> messages,
    List<UnreadableRow> unreadable,
    List<SupersededDeadLetter> superseded,
    Map<UUID, Integer> parked,
    boolean stoppedAtBudget) {
  /** The width of {@code locked_by}: the longest owner. */
  public static final int MAX_OWNER_LENGTH = 128;

  public Claim {
    messages = List.copyOf(messages);
    unreadable = List.copyOf(unreadable);
    superseded = List.copyOf(superseded);
    parked = Map.copyOf(parked);
  }

  /** A claim of readable rows only. */
  public static Claim of(List<OutboxMessage> messages) {
    return new Claim(messages, List.of(), List.of(), Map.of(), false);
  }

  /** Rows claimed, readable or not: fewer than the limit means none more were due. */
  public int size() {
    return messages.size() + unreadable.size();
  }

  public boolean isEmpty() {
    return size() == 0;
  }

  /** This claim and {@code more}, taken after it in the same transaction. */
  public Claim plus(Claim more) {
    List<OutboxMessage> allMessages = new ArrayList<>(messages);
    allMessages.addAll(more.messages);
    List<UnreadableRow> allUnreadable = new ArrayList<>(unreadable);
    allUnreadable.addAll(more.unreadable);
    List<SupersededDeadLetter> allSuperseded = new ArrayList<>(superseded);
    allSuperseded.addAll(more.superseded);
    Map<UUID, Integer> allParked = new HashMap<>(parked);
    allParked.putAll(more.parked);
    return new Claim(
        allMessages,
        allUnreadable,
        allSuperseded,
        allParked,
        stoppedAtBudget || more.stoppedAtBudget);
  }
}

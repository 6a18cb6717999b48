package dev.lambdaoutbox.writer.internal;

import static dev.lambdaoutbox.writer.OutboxRole.POLLER;
import static dev.lambdaoutbox.writer.OutboxRole.REPROCESSOR;
import static dev.lambdaoutbox.writer.OutboxRole.WRITER;
import static dev.lambdaoutbox.writer.internal.TableUses.Access.DELETE;
import static dev.lambdaoutbox.writer.internal.TableUses.Access.INSERT;
import static dev.lambdaoutbox.writer.internal.TableUses.Access.LOCK;
import static dev.lambdaoutbox.writer.internal.TableUses.Access.READ;
import static dev.lambdaoutbox.writer.internal.TableUses.Access.UPDATE;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.Privilege;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.writer.OutboxRole;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * What each user of the outbox does to each table, as its statements do it: the one list the grants
 * are made from ({@link dev.lambdaoutbox.writer.OutboxGrants}). A statement's {@code WHERE} reads
 * the table, so every {@code UPDATE} and {@code DELETE} comes with {@link Access#READ}; a locking
 * read ({@code SELECT ... FOR UPDATE}) is {@link Access#LOCK}, which each dialect grants its own
 * way ({@link #privileges}). The schema history is the migrating user's alone.
 */
public final class TableUses {
  /** What a statement does to a table. */
  public enum Access {
    READ,
    INSERT,
    UPDATE,
    DELETE,
    /** {@code SELECT ... FOR UPDATE}: rows locked, not necessarily changed. */
    LOCK
  }

  /** One user's use of one table, and which of its work needs it. */
  public record Use(
      OutboxRole role, Function<OutboxTables, String> table, Set<Access> access, String why) {}

  public static final List<Use> USES =
      List.of(
          use(
              WRITER,
              OutboxTables::messages,
              "append events; find the event that holds a refused idempotency key",
              INSERT,
              READ),
          use(
              WRITER,
              OutboxTables::idempotencyKeys,
              "take each event's idempotency key; find who holds a refused one; give back the keys"
                  + " of an append that was refused",
              INSERT,
              READ,
              DELETE),
          use(
              WRITER,
              OutboxTables::inbox,
              "record each consumed message (Inbox); purge old rows, locking them first"
                  + " (InboxPurge)",
              INSERT,
              READ,
              DELETE,
              LOCK),
          use(
              POLLER,
              OutboxTables::messages,
              "claim and lease due rows, locking them; mark them sent, retry, defer, park; delete"
                  + " what was published or dead-lettered, and sent rows past their retention",
              READ,
              UPDATE,
              DELETE,
              LOCK),
          use(
              POLLER,
              OutboxTables::deadLetters,
              "move the rows that cannot be published; replace, locking it, a dead letter of the"
                  + " same event id",
              READ,
              INSERT,
              DELETE,
              LOCK),
          use(
              POLLER,
              OutboxTables::deadLetterAudit,
              "keep the dead letter a newer one of the same event id replaces",
              INSERT),
          use(
              POLLER,
              OutboxTables::idempotencyKeys,
              "delete the keys older than the idempotency window, locking them first",
              READ,
              DELETE,
              LOCK),
          use(
              POLLER,
              OutboxTables::destinationHealth,
              "park a destination that is down, probe it (locking its row), forget it once it is"
                  + " back",
              READ,
              INSERT,
              UPDATE,
              DELETE,
              LOCK),
          use(
              POLLER,
              OutboxTables::parkedKeys,
              "skip parked aggregates in the ordered claim and count them; park an aggregate behind"
                  + " its dead-lettered head",
              READ,
              INSERT),
          use(
              POLLER,
              OutboxTables::pollerLeases,
              "take, renew and give back the lease of the woken run that lingers",
              READ,
              UPDATE),
          use(
              POLLER,
              OutboxTables::claimCursors,
              "read and move the ordered claim's place in the aggregates, recreating it if deleted",
              READ,
              INSERT,
              UPDATE),
          use(
              REPROCESSOR,
              OutboxTables::messages,
              "check ids and idempotency keys, then put replayed dead letters back; restore a"
                  + " parked head and release the events behind it; list, retarget (locking them)"
                  + " and dead-letter the rows waiting for a destination that is down; hold and"
                  + " pace a failure group's re-driven rows",
              READ,
              INSERT,
              UPDATE,
              DELETE,
              LOCK),
          use(
              REPROCESSOR,
              OutboxTables::deadLetters,
              "list, replay and discard dead letters, locking them first; dead-letter rows waiting"
                  + " for a destination that is down; give older dead letters their failure"
                  + " fingerprint",
              READ,
              INSERT,
              UPDATE,
              DELETE,
              LOCK),
          use(
              REPROCESSOR,
              OutboxTables::deadLetterAudit,
              "record every replay and discard (append only); read the audit",
              READ,
              INSERT),
          use(
              REPROCESSOR,
              OutboxTables::parkedKeys,
              "list parked aggregates; release one, locking it, when its head is replayed or"
                  + " discarded; park the aggregate of a waiting row it dead-letters",
              READ,
              INSERT,
              DELETE,
              LOCK),
          use(
              REPROCESSOR,
              OutboxTables::destinationHealth,
              "list the destinations that are down with the rows waiting for them",
              READ));

  private TableUses() {}

  private static Use use(
      OutboxRole role, Function<OutboxTables, String> table, String why, Access... access) {
    return new Use(role, table, EnumSet.of(access[0], access), why);
  }

  /**
   * The table privileges {@code access} takes in {@code dialect}. A locking read needs {@code
   * UPDATE} on PostgreSQL; on MySQL 8 (not MariaDB) one of {@code DELETE}, {@code UPDATE} or the
   * database-wide {@code LOCK TABLES}, so {@code UPDATE} where the use has neither of the first
   * two.
   */
  public static Set<Privilege> privileges(Set<Access> access, SqlDialect dialect) {
    Set<Privilege> privileges = EnumSet.noneOf(Privilege.class);
    for (Access a : access) {
      switch (a) {
        case READ -> privileges.add(Privilege.SELECT);
        case INSERT -> privileges.add(Privilege.INSERT);
        case UPDATE -> privileges.add(Privilege.UPDATE);
        case DELETE -> privileges.add(Privilege.DELETE);
        case LOCK -> {
          privileges.add(Privilege.SELECT);
          if (dialect == SqlDialect.POSTGRESQL || !access.contains(DELETE)) {
            privileges.add(Privilege.UPDATE);
          }
        }
      }
    }
    return privileges;
  }
}

package dev.lambdaoutbox.store.model.audit;

import dev.lambdaoutbox.store.model.CursorTokens;
import java.util.Optional;

/**
 * A position in the audit listing, which runs newest entry first (by {@code audit_id}, the order
 * the entries were written in): a page continues with the entries written before the one the cursor
 * names. Operators see it only as an opaque token ({@link #encode()}).
 */
public record AuditCursor(long auditId) {
  private static final String PREFIX = "audit1|";

  public AuditCursor {
    if (auditId < 1) {
      throw new IllegalArgumentException("auditId must be positive, not " + auditId);
    }
  }

  /** The opaque token: URL-safe base64 of a versioned audit id. */
  public String encode() {
    return CursorTokens.encode(PREFIX, Long.toString(auditId));
  }

  /**
   * The cursor a token stands for; empty when it is not a token {@link #encode()} made (a cursor of
   * the dead-letter listing included).
   */
  public static Optional<AuditCursor> decode(String token) {
    return CursorTokens.decode(token, PREFIX)
        .filter(id -> id.matches("[1-9][0-9]{0,17}"))
        .map(id -> new AuditCursor(Long.parseLong(id)));
  }
}

package dev.lambdaoutbox.store.internal.dialect.postgres;

/**
 * How PostgreSQL previews an audit row's snapshot for the audit action (the audit statements
 * themselves are portable: {@link dev.lambdaoutbox.store.internal.dialect.portable.PortableAudit}).
 */
final class PostgresAudit {
  /**
   * The select-list items {@code details} and {@code payload_length}: the details JSON with the
   * snapshot's payload cut to its first {@code :preview} characters, and that payload's recorded
   * length (NULL when the details hold no payload).
   */
  static final String DETAILS_PREVIEW =
      """
      CAST(CASE WHEN jsonb_typeof(details #> '{deadLetter,payload}') = 'string'
        THEN jsonb_set(details, '{deadLetter,payload}',
          to_jsonb(substr(details #>> '{deadLetter,payload}', 1, :preview)))
        ELSE details END AS text) AS details,
      char_length(details #>> '{deadLetter,payload}') AS payload_length
      """
          .strip()
          .replaceAll("\\s*\\n\\s*", " ");

  /** The JSON {@code details} with the snapshot's payload set to the dead letter's, as a string. */
  static String withPayloadOfTheRow(String details) {
    return "jsonb_set(" + details + ", '{deadLetter,payload}', to_jsonb(d.payload))";
  }

  private PostgresAudit() {}
}

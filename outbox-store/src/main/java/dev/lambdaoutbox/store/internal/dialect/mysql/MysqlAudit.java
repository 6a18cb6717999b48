package dev.lambdaoutbox.store.internal.dialect.mysql;

/**
 * How MySQL previews an audit row's snapshot for the audit action (the audit statements themselves
 * are portable: {@link dev.lambdaoutbox.store.internal.dialect.portable.PortableAudit}).
 */
final class MysqlAudit {
  /**
   * The select-list items {@code details} and {@code payload_length}: the details JSON with the
   * snapshot's payload cut to its first {@code :preview} characters, and that payload's recorded
   * length (NULL when the details hold no payload).
   */
  static final String DETAILS_PREVIEW =
      """
      CASE WHEN JSON_TYPE(JSON_EXTRACT(details, '$.deadLetter.payload')) = 'STRING'
        THEN JSON_SET(details, '$.deadLetter.payload',
          SUBSTRING(JSON_UNQUOTE(JSON_EXTRACT(details, '$.deadLetter.payload')), 1, :preview))
        ELSE details END AS details,
      CHAR_LENGTH(CASE WHEN JSON_TYPE(JSON_EXTRACT(details, '$.deadLetter.payload')) = 'STRING'
        THEN JSON_UNQUOTE(JSON_EXTRACT(details, '$.deadLetter.payload')) END) AS payload_length
      """
          .strip()
          .replaceAll("\\s*\\n\\s*", " ");

  /** The JSON {@code details} with the snapshot's payload set to the dead letter's, as a string. */
  static String withPayloadOfTheRow(String details) {
    return "JSON_SET(" + details + ", '$.deadLetter.payload', d.payload)";
  }

  private MysqlAudit() {}
}

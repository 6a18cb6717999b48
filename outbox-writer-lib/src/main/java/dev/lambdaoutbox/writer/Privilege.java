package dev.lambdaoutbox.writer;

/** A table privilege a database user of the outbox is granted ({@link OutboxGrants}). */
public enum Privilege {
  SELECT,
  INSERT,
  UPDATE,
  DELETE
}

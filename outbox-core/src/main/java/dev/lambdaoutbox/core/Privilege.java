package dev.lambdaoutbox.core;

/**
 * A table privilege a database user of the outbox is granted (the writer's {@code OutboxGrants}).
 */
public enum Privilege {
  SELECT,
  INSERT,
  UPDATE,
  DELETE
}

package dev.lambdaoutbox.store.dataapi.internal;

import java.util.Locale;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.rdsdata.model.AccessDeniedException;
import software.amazon.awssdk.services.rdsdata.model.DatabaseResumingException;
import software.amazon.awssdk.services.rdsdata.model.DatabaseUnavailableException;
import software.amazon.awssdk.services.rdsdata.model.ForbiddenException;
import software.amazon.awssdk.services.rdsdata.model.InternalServerErrorException;
import software.amazon.awssdk.services.rdsdata.model.InvalidSecretException;
import software.amazon.awssdk.services.rdsdata.model.SecretsErrorException;
import software.amazon.awssdk.services.rdsdata.model.ServiceUnavailableErrorException;
import software.amazon.awssdk.services.rdsdata.model.TransactionNotFoundException;
import software.amazon.awssdk.services.rdsdata.model.UnsupportedResultException;

/**
 * Classifies Data API failures by what the caller should do about them, as {@code SqlErrors} does
 * driver exceptions. The Data API reports database errors as text (a {@code BadRequestException} or
 * {@code DatabaseErrorException} carrying the server's message), so deadlocks and duplicate keys
 * are recognised by the server's own wording and SQLState.
 */
public final class DataApiErrors {
  /** What a failure calls for. */
  public enum Kind {
    /** The database chose the transaction as a deadlock victim, or failed it for serialization. */
    DEADLOCK,
    /** A unique or primary key violation. */
    DUPLICATE_KEY,
    /**
     * Worth trying again after a pause: Aurora resuming from zero capacity, throttling, a 5xx, the
     * network, or a transaction the service lost.
     */
    TRANSIENT,
    /** The secret does not hold a login the database accepts, or cannot be read. */
    LOGIN_REFUSED,
    /** The caller may not use the Data API on this cluster, or read the secret. */
    ACCESS_DENIED,
    /**
     * The Data API refused a result: a row over 64 KB or a response over 1 MiB ({@code
     * UnsupportedResultException}, which also covers a column type it cannot return).
     */
    RESULT_REFUSED,
    /** Anything else: bad SQL, a constraint, a statement timeout. Trying again will not help. */
    OTHER
  }

  private DataApiErrors() {}

  public static Kind classify(Throwable e) {
    if (e instanceof DatabaseResumingException
        || e instanceof DatabaseUnavailableException
        || e instanceof ServiceUnavailableErrorException
        || e instanceof InternalServerErrorException
        || e instanceof TransactionNotFoundException
        || e instanceof SdkClientException) {
      return Kind.TRANSIENT;
    }
    if (e instanceof AccessDeniedException || e instanceof ForbiddenException) {
      return Kind.ACCESS_DENIED;
    }
    if (e instanceof InvalidSecretException || e instanceof SecretsErrorException) {
      return Kind.LOGIN_REFUSED;
    }
    if (e instanceof UnsupportedResultException) {
      return Kind.RESULT_REFUSED;
    }
    if (e instanceof AwsServiceException a
        && (a.isThrottlingException() || a.statusCode() >= 500)) {
      return Kind.TRANSIENT;
    }
    String m = message(e).toLowerCase(Locale.ROOT);
    if (m.contains("deadlock detected")
        || m.contains("could not serialize access")
        || m.contains("deadlock found when trying to get lock")
        || m.contains("sqlstate: 40p01")
        || m.contains("sqlstate: 40001")) {
      return Kind.DEADLOCK;
    }
    if (m.contains("duplicate key value violates unique constraint")
        || m.contains("duplicate entry")
        || m.contains("sqlstate: 23505")) {
      return Kind.DUPLICATE_KEY;
    }
    if (m.contains("password authentication failed") || m.contains("access denied for user")) {
      return Kind.LOGIN_REFUSED;
    }
    return Kind.OTHER;
  }

  /** The service's own message, without the SDK's request-id decoration where there is one. */
  public static String message(Throwable e) {
    if (e instanceof AwsServiceException a
        && a.awsErrorDetails() != null
        && a.awsErrorDetails().errorMessage() != null) {
      return a.awsErrorDetails().errorMessage();
    }
    return String.valueOf(e.getMessage());
  }
}

package dev.lambdaoutbox.store.config;

import java.util.function.Function;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

/** Where the database login comes from. */
@FunctionalInterface
public interface CredentialsSource {
  /**
   * The login; with {@code refresh}, looked up afresh (after the database refused the cached one,
   * e.g. because the secret was rotated).
   */
  DatabaseCredentials get(boolean refresh);

  static CredentialsSource of(DatabaseCredentials credentials) {
    return refresh -> credentials;
  }

  /**
   * From settings: a fixed user/password, or the JSON secret named by its ARN, fetched with {@code
   * client}.
   */
  static CredentialsSource from(
      DatabaseSettings settings, Function<String, SecretsManagerClient> clientForArn) {
    if (settings.secretArn().isEmpty()) {
      return of(
          new DatabaseCredentials(
              settings.user().orElseThrow(), settings.password().orElseThrow()));
    }
    String arn = settings.secretArn().get();
    SecretsManagerClient client = clientForArn.apply(arn);
    return new CredentialsSource() {
      private DatabaseCredentials cached;

      @Override
      public synchronized DatabaseCredentials get(boolean refresh) {
        if (cached == null || refresh) {
          cached =
              SecretLogin.parse(arn, client.getSecretValue(r -> r.secretId(arn)).secretString());
        }
        return cached;
      }
    };
  }
}

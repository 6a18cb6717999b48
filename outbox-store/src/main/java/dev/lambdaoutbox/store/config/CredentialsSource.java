package dev.lambdaoutbox.store.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.writer.internal.JsonSupport;
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
          cached = parse(arn, client.getSecretValue(r -> r.secretId(arn)).secretString());
        }
        return cached;
      }
    };
  }

  private static DatabaseCredentials parse(String arn, String secretString) {
    JsonNode json;
    try {
      json = JsonSupport.mapper().readTree(secretString == null ? "" : secretString);
    } catch (Exception e) {
      throw new ConfigurationException(
          DatabaseSettings.SECRET_ARN,
          "secret " + arn + " is not JSON with username and password",
          e);
    }
    if (json == null || !json.path("username").isTextual() || !json.path("password").isTextual()) {
      throw new ConfigurationException(
          DatabaseSettings.SECRET_ARN,
          "secret " + arn + " lacks a string 'username' or 'password'");
    }
    return new DatabaseCredentials(json.get("username").asText(), json.get("password").asText());
  }
}

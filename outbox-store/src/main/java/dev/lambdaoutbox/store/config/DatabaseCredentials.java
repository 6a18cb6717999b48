package dev.lambdaoutbox.store.config;

/** A database login. */
public record DatabaseCredentials(String username, String password) {
  @Override
  public String toString() {
    return "DatabaseCredentials[username=" + username + "]";
  }
}

package dev.lambdaoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The metadata IDEs complete {@code lambda-outbox.*} properties from, as the jar carries it: every
 * property with its type, its description and, where it has one, its default.
 */
class ConfigurationMetadataTest {
  @Test
  void everyProperty_isDescribed_withItsDefault() throws Exception {
    JsonNode metadata;
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("the configuration processor wrote the metadata").isNotNull();
      metadata = new ObjectMapper().readTree(in);
    }
    Map<String, JsonNode> properties = new LinkedHashMap<>();
    metadata.path("properties").forEach(p -> properties.put(p.path("name").asText(), p));

    assertThat(properties)
        .containsOnlyKeys(
            "lambda-outbox.table-prefix",
            "lambda-outbox.max-payload-bytes",
            "lambda-outbox.schema.migrate",
            "lambda-outbox.waker.function-name",
            "lambda-outbox.waker.interval",
            "lambda-outbox.waker.quiet-period");
    properties.forEach(
        (name, p) -> assertThat(p.path("description").asText()).as(name).isNotBlank());
    assertThat(properties.get("lambda-outbox.max-payload-bytes").path("defaultValue").asInt())
        .isEqualTo(262_144);
    assertThat(properties.get("lambda-outbox.waker.interval").path("defaultValue").asText())
        .isEqualTo("100ms");
    assertThat(properties.get("lambda-outbox.waker.quiet-period").path("defaultValue").asText())
        .isEqualTo("5s");
    assertThat(properties.get("lambda-outbox.schema.migrate").path("defaultValue").asBoolean())
        .isFalse();
    assertThat(properties.get("lambda-outbox.waker.interval").path("type").asText())
        .isEqualTo("java.time.Duration");
  }
}

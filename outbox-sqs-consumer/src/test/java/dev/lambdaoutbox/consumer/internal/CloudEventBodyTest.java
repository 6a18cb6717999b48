package dev.lambdaoutbox.consumer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class CloudEventBodyTest {
  private static final UUID ID = UUID.fromString("0195a3c4-8f21-7b9e-a4d2-3c51e0f7b812");

  private static String event(String id, String contentType, String data) {
    return "{\"specversion\":\"1.0\",\"id\":\""
        + id
        + "\",\"source\":\"/shop\",\"type\":\"reservation.created\""
        + (contentType == null ? "" : ",\"datacontenttype\":\"" + contentType + "\"")
        + ",\"data\":"
        + data
        + ",\"traceparent\":\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\"}";
  }

  @Test
  void theEventsOwnCloudEvent_givesItsDataAsWritten_characterForCharacter() {
    String data = "{ \"id\" : 42,\n \"name\": \"caf\\u00e9 é\", \"tags\": [1, {\"a\": null}] }";
    assertThat(CloudEventBody.payload(event(ID.toString(), "application/json", data), ID))
        .isEqualTo(data);
  }

  @Test
  void aJsonStringOrNumberAsData_isThePayloadsJsonText() {
    assertThat(CloudEventBody.payload(event(ID.toString(), "application/json", "\"a\\\"b\""), ID))
        .isEqualTo("\"a\\\"b\"");
    assertThat(CloudEventBody.payload(event(ID.toString(), null, "12.50"), ID)).isEqualTo("12.50");
  }

  @Test
  void textData_isTheStringsValue() {
    assertThat(
            CloudEventBody.payload(event(ID.toString(), "text/plain", "\"not \\\"json\\\"\""), ID))
        .isEqualTo("not \"json\"");
  }

  @Test
  void aCloudEventForAnotherId_orAnyOtherBody_isThePayloadItself() {
    String otherEvents = event(UUID.randomUUID().toString(), "application/json", "{\"a\":1}");
    assertThat(CloudEventBody.payload(otherEvents, ID)).isEqualTo(otherEvents);
    String oldVersion =
        otherEvents
            .replace("\"1.0\"", "\"0.3\"")
            .replace(
                otherEvents.substring(
                    otherEvents.indexOf("\"id\":\"") + 6, otherEvents.indexOf("\"id\":\"") + 42),
                ID.toString());
    assertThat(CloudEventBody.payload(oldVersion, ID)).isEqualTo(oldVersion);
    assertThat(CloudEventBody.payload("{\"specversion\": [", ID)).isEqualTo("{\"specversion\": [");
    assertThat(CloudEventBody.payload("[1,2]", ID)).isEqualTo("[1,2]");
    assertThat(CloudEventBody.payload("{\"id\":\"" + ID + "\"}", ID))
        .isEqualTo("{\"id\":\"" + ID + "\"}");
  }
}

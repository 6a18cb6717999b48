package dev.lambdaoutbox.spring;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.writer.OutboxSchema;
import dev.lambdaoutbox.writer.OutboxWriter;
import dev.lambdaoutbox.writer.PollerWaker;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.jdbc.datasource.DataSourceUtils;
import software.amazon.awssdk.services.lambda.LambdaClient;

/**
 * Spring Boot's auto-configuration of the outbox, from {@link OutboxProperties}: the tables, an
 * {@link OutboxWriter}, a {@link PollerWaker} when {@code lambda-outbox.waker.function-name} is
 * set, a {@link TransactionalOutbox} on the application's one {@code DataSource}, the migrations at
 * start-up when {@code lambda-outbox.schema.migrate} is true, and, with Micrometer, the meters of
 * {@link OutboxMeters}. Every bean backs off when the application defines its own.
 *
 * <p>It runs after the DataSource's auto-configuration (named for Spring Boot 3 and 4 alike).
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"
    })
@ConditionalOnClass({DataSource.class, DataSourceUtils.class})
@EnableConfigurationProperties(OutboxProperties.class)
public class OutboxAutoConfiguration {
  /** The tables under {@code lambda-outbox.table-prefix}. */
  @Bean
  @ConditionalOnMissingBean
  public OutboxTables outboxTables(OutboxProperties properties) {
    try {
      return OutboxTables.withPrefix(properties.getTablePrefix());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("lambda-outbox.table-prefix: " + e.getMessage(), e);
    }
  }

  @Bean
  @ConditionalOnMissingBean
  public OutboxWriter outboxWriter(OutboxTables tables, OutboxProperties properties) {
    try {
      return OutboxWriter.builder()
          .tables(tables)
          .maxPayloadBytes(properties.getMaxPayloadBytes())
          .build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("lambda-outbox.max-payload-bytes: " + e.getMessage(), e);
    }
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnSingleCandidate(DataSource.class)
  public TransactionalOutbox transactionalOutbox(
      DataSource dataSource, OutboxWriter writer, ObjectProvider<PollerWaker> waker) {
    TransactionalOutbox.Builder builder =
        TransactionalOutbox.builder().dataSource(dataSource).writer(writer);
    waker.ifAvailable(builder::waker);
    return builder.build();
  }

  /** Applies the missing migrations before anything can append. */
  @Bean
  @ConditionalOnProperty(prefix = "lambda-outbox.schema", name = "migrate", havingValue = "true")
  @ConditionalOnSingleCandidate(DataSource.class)
  public InitializingBean outboxSchemaMigration(DataSource dataSource, OutboxTables tables) {
    return () -> {
      try (Connection connection = dataSource.getConnection()) {
        OutboxSchema.create(tables).migrate(connection);
      } catch (SQLException e) {
        throw new IllegalStateException(
            "lambda-outbox.schema.migrate: could not connect to migrate the outbox tables", e);
      }
    };
  }

  /** The waker, with the application's one {@code LambdaClient} bean if it has one. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(LambdaClient.class)
  @Conditional(WakerNamed.class)
  static class WakerConfiguration {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    PollerWaker pollerWaker(OutboxProperties properties, ObjectProvider<LambdaClient> lambda) {
      PollerWaker.Builder builder = waker(properties);
      LambdaClient client = lambda.getIfUnique();
      if (client != null) {
        builder.lambdaClient(client);
      }
      return builder.build();
    }
  }

  /**
   * The waker asked for without the AWS SDK's Lambda client: {@link PollerWaker.Builder#build()}
   * fails the start-up naming what to add, rather than the property being ignored.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingClass("software.amazon.awssdk.services.lambda.LambdaClient")
  @Conditional(WakerNamed.class)
  static class WakerWithoutSdkConfiguration {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    PollerWaker pollerWaker(OutboxProperties properties) {
      return waker(properties).build();
    }
  }

  /**
   * {@code lambda-outbox.waker.function-name} holds a name: empty counts as unset, so that {@code
   * function-name: ${WAKE_UP_FUNCTION_ARN:}} turns wake-ups off where the variable is not set.
   */
  static class WakerNamed implements Condition {
    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
      String name = context.getEnvironment().getProperty("lambda-outbox.waker.function-name");
      return name != null && !name.isBlank();
    }
  }

  static PollerWaker.Builder waker(OutboxProperties properties) {
    OutboxProperties.Waker waker = properties.getWaker();
    try {
      return PollerWaker.builder()
          .functionName(waker.getFunctionName())
          .interval(waker.getInterval())
          .quietPeriod(waker.getQuietPeriod());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("lambda-outbox.waker: " + e.getMessage(), e);
    }
  }

  /** The meters, bound to every registry Spring Boot's Micrometer support configures. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterBinder.class)
  static class MetersConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "outboxMeterBinder")
    MeterBinder outboxMeterBinder(
        ObjectProvider<TransactionalOutbox> outbox, ObjectProvider<PollerWaker> waker) {
      return registry -> {
        outbox.ifAvailable(o -> OutboxMeters.bind(registry, o));
        waker.ifAvailable(w -> OutboxMeters.bind(registry, w));
      };
    }
  }
}

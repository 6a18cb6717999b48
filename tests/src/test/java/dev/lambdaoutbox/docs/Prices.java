package dev.lambdaoutbox.docs;

/**
 * AWS's prices the cost section is computed with: US East (N. Virginia), x86, on-demand, free tiers
 * left out. Stated once, here; {@link DocSections#cost()} prints them with the arithmetic.
 */
final class Prices {
  static final double LAMBDA_PER_MILLION_REQUESTS = 0.20;
  static final double LAMBDA_PER_GB_SECOND = 0.0000166667;
  static final double SNS_PER_MILLION_PUBLISHES = 0.50;
  static final double SQS_PER_MILLION_REQUESTS = 0.40;
  static final double SQS_FIFO_PER_MILLION_REQUESTS = 0.50;
  static final double EVENTBRIDGE_PER_MILLION_EVENTS = 1.00;
  static final double S3_PUT_PER_1000_REQUESTS = 0.005;
  static final double S3_GET_PER_1000_REQUESTS = 0.0004;
  static final double S3_STANDARD_PER_GB_MONTH = 0.023;
  static final double CUSTOM_METRIC_PER_MONTH = 0.30;
  static final double STANDARD_ALARM_PER_MONTH = 0.10;
  static final double DASHBOARD_PER_MONTH = 3.00;
  static final double LOG_INGESTION_PER_GB = 0.50;
  static final double LOG_STORAGE_PER_GB_MONTH = 0.03;
  static final double SECRET_PER_MONTH = 0.40;
  static final double SECRETS_MANAGER_PER_10K_CALLS = 0.05;
  static final double KMS_PER_10K_REQUESTS = 0.03;
  static final double KMS_KEY_PER_MONTH = 1.00;
  static final double NAT_GATEWAY_PER_HOUR = 0.045;
  static final double INTERFACE_ENDPOINT_PER_AZ_HOUR = 0.01;
  static final double CLOUDTRAIL_PER_100K_DATA_EVENTS = 0.10;

  static final String SOURCES =
      "[Lambda](https://aws.amazon.com/lambda/pricing/), [SNS](https://aws.amazon.com/sns/pricing/),"
          + " [SQS](https://aws.amazon.com/sqs/pricing/),"
          + " [EventBridge](https://aws.amazon.com/eventbridge/pricing/),"
          + " [S3](https://aws.amazon.com/s3/pricing/),"
          + " [CloudWatch](https://aws.amazon.com/cloudwatch/pricing/),"
          + " [Secrets Manager](https://aws.amazon.com/secrets-manager/pricing/),"
          + " [KMS](https://aws.amazon.com/kms/pricing/),"
          + " [VPC](https://aws.amazon.com/vpc/pricing/),"
          + " [PrivateLink](https://aws.amazon.com/privatelink/pricing/),"
          + " [CloudTrail](https://aws.amazon.com/cloudtrail/pricing/)";

  static final String FREE_TIERS =
      "1M Lambda requests and 400,000 GB-s a month, 1M SNS and 1M SQS requests, three dashboards";

  /** Hours in AWS's billing month. */
  static final int HOURS_A_MONTH = 730;

  private Prices() {}
}

package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * What the Serverless Application Repository and a console deploy take: {@code sam build} then
 * {@code sam package} (scripts/sam, the pinned SAM CLI) against the test bed's S3 (LocalStack, in a
 * bucket of this run's own, removed after). The packaged template must name no local path: the
 * functions' code, LICENSE and README.md are S3 objects, and each function's package holds the very
 * {@code -lambda.jar} the build made.
 */
class SamPackageTest {
  private static final Path ROOT = PackagedFunction.projectRoot();
  private static final Path WORK = ROOT.resolve("tests/target/sam-package");
  private static final String BUCKET = "sam-package-" + UUID.randomUUID();

  private static S3Client s3;
  private static SamTemplate packaged;

  @BeforeAll
  static void buildAndPackage() throws Exception {
    AwsEndpoint aws = TestEndpoints.aws();
    s3 =
        S3Client.builder()
            .endpointOverride(aws.endpoint())
            .region(aws.awsRegion())
            .credentialsProvider(aws.credentials())
            .forcePathStyle(true)
            .build();
    s3.createBucket(b -> b.bucket(BUCKET));
    Map<String, String> env = new HashMap<>();
    env.put("AWS_ENDPOINT_URL", aws.endpoint().toString());
    env.put("AWS_REGION", aws.region());
    env.put("AWS_DEFAULT_REGION", aws.region());
    env.put("AWS_ACCESS_KEY_ID", aws.accessKeyId());
    env.put("AWS_SECRET_ACCESS_KEY", aws.secretAccessKey());
    Path build = WORK.resolve("build");
    Path template = WORK.resolve("packaged.yaml");
    sam(env, "build", "--build-dir", build.toString());
    sam(
        env,
        "package",
        "--template-file",
        build.resolve("template.yaml").toString(),
        "--s3-bucket",
        BUCKET,
        "--output-template-file",
        template.toString());
    packaged = SamTemplate.load(template);
  }

  @AfterAll
  static void removeBucket() {
    if (s3 == null) {
      return;
    }
    for (S3Object object : s3.listObjectsV2(b -> b.bucket(BUCKET)).contents()) {
      s3.deleteObject(b -> b.bucket(BUCKET).key(object.key()));
    }
    s3.deleteBucket(b -> b.bucket(BUCKET));
    s3.close();
  }

  @Test
  void packagedTemplate_namesNoLocalPath() {
    List<String> local = new ArrayList<>();
    collectLocalPaths(packaged.raw(), "", local);

    // sam build records where it ran the Makefile in each function's Metadata; CloudFormation and
    // the Serverless Application Repository ignore resource Metadata, and "." travels nowhere.
    local.removeIf(
        path -> path.matches("/Resources/\\w+/Metadata/(ContextPath|WorkingDirectory) = \\."));
    assertThat(local).isEmpty();
  }

  @Test
  void functionsCodeLicenseAndReadme_areObjectsInTheBucket() {
    Map<String, Object> sar = sarMetadata();
    assertThat(List.of(sar.get("LicenseUrl"), sar.get("ReadmeUrl")))
        .allSatisfy(url -> assertThat((String) url).startsWith("s3://" + BUCKET + "/"));
    for (String function : List.of("PollerFunction", "DlqReprocessorFunction")) {
      assertThat(codeUri(function)).startsWith("s3://" + BUCKET + "/");
    }
  }

  @Test
  void eachFunctionPackage_holdsTheJarTheBuildMade() throws IOException {
    for (Map.Entry<String, String> function :
        Map.of(
                "PollerFunction", "poller-function",
                "DlqReprocessorFunction", "dlq-reprocessor-function")
            .entrySet()) {
      Path jar = PackagedFunction.lambdaJar(function.getValue());
      String key = codeUri(function.getKey()).substring(("s3://" + BUCKET + "/").length());
      byte[] zip = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();

      assertThat(entry(zip, "lib/" + jar.getFileName()))
          .as("%s's package in S3", function.getKey())
          .isEqualTo(Files.readAllBytes(jar));
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> sarMetadata() {
    Map<String, Object> metadata = (Map<String, Object>) packaged.raw().get("Metadata");
    return (Map<String, Object>) metadata.get("AWS::ServerlessRepo::Application");
  }

  @SuppressWarnings("unchecked")
  private static String codeUri(String function) {
    Map<String, Object> properties =
        (Map<String, Object>) packaged.rawResource(function).get("Properties");
    return String.valueOf(properties.get("CodeUri"));
  }

  /** Every string of the template that names a file or folder of this checkout. */
  @SuppressWarnings("unchecked")
  private static void collectLocalPaths(Object node, String where, List<String> found) {
    if (node instanceof Map<?, ?> map) {
      map.forEach((k, v) -> collectLocalPaths(v, where + "/" + k, found));
    } else if (node instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        collectLocalPaths(list.get(i), where + "[" + i + "]", found);
      }
    } else if (node instanceof String text
        && !text.isBlank()
        && !text.contains("\n")
        && text.length() < 200
        && !text.contains("://")
        && (Files.exists(ROOT.resolve(text))
            || (text.startsWith("/") && Files.exists(Path.of(text))))) {
      found.add(where + " = " + text);
    }
  }

  private static byte[] entry(byte[] zip, String name) throws IOException {
    try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
      for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
        if (e.getName().equals(name)) {
          return in.readAllBytes();
        }
      }
    }
    throw new AssertionError("the package holds no " + name);
  }

  private static void sam(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(ROOT.resolve("scripts/sam").toString()));
    command.addAll(List.of(args));
    Files.createDirectories(WORK);
    Path log = WORK.resolve("sam-" + args[0] + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true);
    builder.redirectOutput(log.toFile());
    builder.environment().putAll(env);
    Process process = builder.start();
    if (!process.waitFor(10, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("sam " + args[0] + " did not finish in 10 minutes; see " + log);
    }
    assertThat(process.exitValue())
        .as("sam %s exit code; its output:%n%s", args[0], Files.readString(log))
        .isZero();
  }
}

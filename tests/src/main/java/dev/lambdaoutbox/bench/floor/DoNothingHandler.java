package dev.lambdaoutbox.bench.floor;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The cold-start floor: a Lambda handler that reads its event and answers {@code {}}, nothing else.
 * The build packages it alone into {@code tests/target/tests-*-do-nothing-lambda.jar}, so {@code
 * ColdStartBenchmark} measures what starting any Java function costs (the JVM and the runtime
 * interface client) beside the real functions.
 */
public final class DoNothingHandler implements RequestStreamHandler {
  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    input.readAllBytes();
    output.write("{}".getBytes(StandardCharsets.UTF_8));
  }
}

package dev.lambdaoutbox.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Sends POSIX signals to processes: Java's process API sends only SIGTERM and SIGKILL, and freezing
 * an execution environment needs SIGSTOP and SIGCONT. One shell, started once, runs {@code kill}
 * for each request and answers when it is done: a signal takes well under a millisecond, not the
 * several a new {@code kill} process costs, so a function is frozen as promptly after its answer as
 * Lambda freezes it, and a thread it left running gets no extra time.
 */
final class Signals {
  private static Process shell;
  private static OutputStream requests;
  private static BufferedReader answers;

  private Signals() {}

  /** Sends {@code SIG<name>} (e.g. {@code STOP}, {@code CONT}) to {@code pid} and waits for it. */
  static synchronized void send(long pid, String name) {
    try {
      if (shell == null || !shell.isAlive()) {
        shell =
            new ProcessBuilder(
                    "bash",
                    "-c",
                    "while read -r sig pid; do kill -$sig $pid 2>/dev/null; echo; done")
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        requests = shell.getOutputStream();
        answers =
            new BufferedReader(
                new InputStreamReader(shell.getInputStream(), StandardCharsets.US_ASCII));
      }
      // a process already gone makes kill fail: nothing left to signal
      requests.write((name + " " + pid + "\n").getBytes(StandardCharsets.US_ASCII));
      requests.flush();
      answers.readLine();
    } catch (IOException e) {
      shell = null;
      throw new UncheckedIOException("could not send SIG" + name + " to " + pid, e);
    }
  }
}

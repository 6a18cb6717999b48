package dev.lambdaoutbox.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * CPU time used during a benchmark run by this JVM, by the server listening on a port (the SNS/SQS
 * endpoint) and by the whole machine, read from Linux's {@code /proc}, to tell what bounds a run.
 * On a machine without {@code /proc} the server and machine figures are missing, never made up.
 */
final class CpuUse {
  /** Linux reports process CPU time in clock ticks of 1/100 s on every common platform. */
  static final long NANOS_PER_TICK = 10_000_000L;

  private final OptionalLong serverPid;
  private final int cpus = Runtime.getRuntime().availableProcessors();

  private CpuUse(OptionalLong serverPid) {
    this.serverPid = serverPid;
  }

  /** Watches this JVM, the machine, and the process listening on 127.0.0.1:{@code port}. */
  static CpuUse withServerOn(int port) {
    return new CpuUse(listenerPid(port));
  }

  OptionalLong serverPid() {
    return serverPid;
  }

  /** Readings now; {@link Sample#since} turns two of them into shares of the elapsed time. */
  Sample sample() {
    return new Sample(
        System.nanoTime(),
        ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime(),
        serverPid.isPresent() ? processTicks(serverPid.getAsLong()) : -1,
        machineBusyTicks());
  }

  /** One reading: wall clock, this JVM's CPU, the server's and the machine's busy ticks. */
  record Sample(long wallNanos, long jvmNanos, long serverTicks, long machineBusyTicks) {}

  /**
   * "JVM 0.62 cores, server 0.97 cores, machine 1.85 of 2 cores": CPU used between two samples, in
   * cores (CPU seconds per wall-clock second).
   */
  String describe(Sample from, Sample to) {
    double wall = to.wallNanos() - from.wallNanos();
    String server =
        from.serverTicks() < 0 || to.serverTicks() < 0
            ? "server unknown"
            : String.format(
                Locale.ROOT,
                "server %.2f cores",
                (to.serverTicks() - from.serverTicks()) * NANOS_PER_TICK / wall);
    String machine =
        from.machineBusyTicks() < 0
            ? "machine unknown"
            : String.format(
                Locale.ROOT,
                "machine %.2f of %d cores",
                (to.machineBusyTicks() - from.machineBusyTicks()) * NANOS_PER_TICK / wall,
                cpus);
    return String.format(
        Locale.ROOT,
        "JVM %.2f cores, %s, %s",
        (to.jvmNanos() - from.jvmNanos()) / wall,
        server,
        machine);
  }

  /** utime + stime of one process, in ticks; -1 when it cannot be read. */
  static long processTicks(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // The command name (field 2) may hold spaces; fields after its closing parenthesis are plain.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime (14, 15)
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** Ticks all CPUs spent busy (not idle, iowait or stolen) since boot; -1 without /proc/stat. */
  private static long machineBusyTicks() {
    try {
      String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long busy = 0;
      for (int i = 1; i < cpu.length && i <= 7; i++) { // user .. softirq; not steal
        if (i != 4 && i != 5) { // idle, iowait
          busy += Long.parseLong(cpu[i]);
        }
      }
      return busy;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** The process holding the socket listening on {@code port}, from /proc/net/tcp and tcp6. */
  private static OptionalLong listenerPid(int port) {
    String inode = null;
    try {
      List<String> sockets = new ArrayList<>(Files.readAllLines(Path.of("/proc/net/tcp")));
      Path tcp6 = Path.of("/proc/net/tcp6"); // a JVM's server socket is often a dual-stack one
      if (Files.exists(tcp6)) {
        sockets.addAll(Files.readAllLines(tcp6));
      }
      for (String line : sockets) {
        String[] f = line.trim().split("\\s+");
        if (f.length > 9
            && f[3].equals("0A") // LISTEN
            && f[1].endsWith(String.format(":%04X", port))) {
          inode = f[9];
        }
      }
      if (inode == null) {
        return OptionalLong.empty();
      }
      String socket = "socket:[" + inode + "]";
      try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
        for (Path proc : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
          if (holds(proc, socket)) {
            return OptionalLong.of(Long.parseLong(proc.getFileName().toString()));
          }
        }
      }
    } catch (IOException | UncheckedIOException e) {
      return OptionalLong.empty();
    }
    return OptionalLong.empty();
  }

  private static boolean holds(Path proc, String socket) {
    try (Stream<Path> fds = Files.list(proc.resolve("fd"))) {
      List<Path> all = fds.toList();
      for (Path fd : all) {
        try {
          if (Files.readSymbolicLink(fd).toString().equals(socket)) {
            return true;
          }
        } catch (IOException e) {
          // The descriptor closed while we looked; it is not the listener.
        }
      }
    } catch (IOException | UncheckedIOException e) {
      // Another user's process, or one that ended while we looked: not ours to read.
    }
    return false;
  }
}

package io.monitorbackbone.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a server's CPU went, from a JFR recording ({@code --server-opts -XX:StartFlightRecording=filename=F}): execution
 * samples by thread group (the embedded broker, the gateway's HTTP and worker threads, its Kafka clients, the leases
 * service), the hottest leaf frames, and the hottest frames of our own code counted inclusively.
 */
final class JfrSummary {
    private JfrSummary() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: ./mp bench --jfr-summary FILE.jfr [top [from-epoch-ms to-epoch-ms]]");
            return;
        }
        int top = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        // A scenario's window, as the bench prints it, so start-up and loading are left out.
        long from = args.length > 3 ? Long.parseLong(args[2]) : Long.MIN_VALUE;
        long to = args.length > 3 ? Long.parseLong(args[3]) : Long.MAX_VALUE;
        Map<String, Long> groups = new HashMap<>();
        Map<String, Long> threads = new HashMap<>();
        Map<String, Long> leaves = new HashMap<>();
        Map<String, Long> ours = new HashMap<>();
        long total = 0;
        double jvmCpu = 0;
        double machineCpu = 0;
        int cpuLoads = 0;
        double gcPauseMs = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(args[0]))) {
            long at = e.getStartTime().toEpochMilli();
            if (at >= from && at <= to && e.getEventType().getName().equals("jdk.CPULoad")) {
                jvmCpu += e.getFloat("jvmUser") + e.getFloat("jvmSystem");
                machineCpu += e.getFloat("machineTotal");
                cpuLoads++;
            }
            if (at >= from && at <= to && e.getEventType().getName().equals("jdk.GCPhasePause")) {
                gcPauseMs += e.getDuration().toNanos() / 1e6;
            }
            if (!e.getEventType().getName().equals("jdk.ExecutionSample")
                    || e.getStackTrace() == null
                    || e.getStartTime().toEpochMilli() < from
                    || e.getStartTime().toEpochMilli() > to) {
                continue;
            }
            total++;
            String thread = e.getThread("sampledThread") == null
                    ? "?"
                    : e.getThread("sampledThread").getJavaName();
            String name = thread == null ? "?" : thread;
            groups.merge(group(name), 1L, Long::sum);
            threads.merge(name.replaceAll("\\d+", "N"), 1L, Long::sum);
            List<RecordedFrame> frames = e.getStackTrace().getFrames();
            if (!frames.isEmpty()) {
                leaves.merge(frame(frames.get(0)), 1L, Long::sum);
            }
            Set<String> seen = new HashSet<>();
            for (RecordedFrame f : frames) {
                String m = frame(f);
                if (m.startsWith("io.monitorbackbone") && seen.add(m)) {
                    ours.merge(m, 1L, Long::sum);
                }
            }
        }
        System.out.println("execution samples: " + total);
        if (cpuLoads > 0) {
            // JFR's CPU load is a share of all cores: 1.0 is both cores of a two-core machine busy.
            System.out.printf(
                    "CPU load, mean of %d samples: this JVM %.0f%%, whole machine %.0f%% (of all cores)%n",
                    cpuLoads, 100 * jvmCpu / cpuLoads, 100 * machineCpu / cpuLoads);
        }
        System.out.printf("GC pauses: %.0f ms in all%n", gcPauseMs);
        print("by thread group", groups, total, top);
        print("by thread (digits as N)", threads, total, top);
        print("leaf frames", leaves, total, top);
        print("our frames, inclusive", ours, total, top);
    }

    static String group(String name) {
        // A Kafka client's network thread is named "kafka-producer-network-thread | <client id>": it belongs to the
        // role whose client it is (the projector's producer had been counted as the leases service's).
        int client = name.indexOf(" | ");
        String thread = client >= 0 && name.startsWith("kafka-") && name.startsWith("mp-", client + 3)
                ? name.substring(client + 3)
                : name;
        // Before the gateway's "mp-" prefix: the projector's loops and clients, the leases' Streams threads.
        if (thread.startsWith("mp-projector")) {
            return "projector";
        }
        if (thread.contains("StreamThread") || thread.contains("leases") || thread.contains("GlobalStreamThread")) {
            return "leases service (Kafka Streams)";
        }
        if (thread.startsWith("mp-bridge")) {
            return "bridge";
        }
        if (thread.startsWith("C1 CompilerThre") || thread.startsWith("C2 CompilerThre")) {
            return "JVM: JIT compiler";
        }
        if (thread.startsWith("GC Thread") || thread.startsWith("G1 ") || thread.startsWith("VM ")) {
            return "JVM: GC and VM";
        }
        if (thread.startsWith("vert.x-eventloop") || thread.startsWith("vert.x-acceptor")) {
            return "gateway: HTTP event loops";
        }
        if (thread.startsWith("mp-work") || thread.startsWith("ForkJoinPool") || thread.startsWith("executor-thread")) {
            return "gateway: workers";
        }
        if (thread.startsWith("kafka-producer-network-thread")
                || thread.startsWith("mp-")
                || thread.contains("mp-gateway")
                || thread.startsWith("kafka-coordinator-heartbeat")
                || thread.contains("mp-reader")
                || thread.contains("mp-follower")) {
            return "gateway: Kafka clients and follower";
        }
        if (thread.startsWith("data-plane")
                || thread.startsWith("kafka-")
                || thread.startsWith("broker-")
                || thread.startsWith("controller")
                || thread.startsWith("raft")
                || thread.startsWith("quorum")
                || thread.contains("Reaper")
                || thread.startsWith("group-coordinator")
                || thread.startsWith("share-")
                || thread.startsWith("transaction")
                || thread.startsWith("LogDirFailureHandler")
                || thread.startsWith("ReplicaFetcher")
                || thread.startsWith("ExpirationReaper")
                || thread.startsWith("kafka-scheduler")
                || thread.startsWith("log-cleaner")) {
            return "embedded broker";
        }
        return "other: " + thread.replaceAll("\\d+", "N");
    }

    private static String frame(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName();
    }

    private static void print(String title, Map<String, Long> counts, long total, int top) {
        System.out.println();
        System.out.println(title + ":");
        counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(top)
                .forEach(e -> System.out.printf("  %5.1f%%  %s%n", 100.0 * e.getValue() / total, e.getKey()));
    }
}

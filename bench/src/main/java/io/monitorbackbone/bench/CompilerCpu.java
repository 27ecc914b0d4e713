package io.monitorbackbone.bench;

import java.util.HashMap;
import java.util.Map;

/**
 * The CPU seconds a server's JIT compiler threads have used, as a total that never goes down. HotSpot ends idle
 * compiler threads and starts new ones as its queue grows ({@code UseDynamicNumberOfCompilerThreads}, on by
 * default), and an ended thread's seconds leave {@code /proc} with it; a sum over the threads alive at each reading
 * would then fall between two readings and a window's JIT share would come out negative. This remembers every
 * compiler thread it has seen at its last reading, so an ended thread keeps what it had used when last seen (it loses
 * only what it used after that, which the window then undercounts).
 */
final class CompilerCpu {
    private final Map<Long, Double> seen = new HashMap<>();
    private long pid = -1;

    /** The total so far, given the compiler threads alive now (thread id to CPU seconds) in the process {@code pid}. */
    synchronized double total(long pid, Map<Long, Double> alive) {
        if (pid != this.pid) {
            seen.clear(); // a restarted server: its threads are new, its compilers start from nothing
            this.pid = pid;
        }
        alive.forEach((tid, seconds) -> seen.merge(tid, seconds, Math::max));
        double sum = 0;
        for (double seconds : seen.values()) {
            sum += seconds;
        }
        return sum;
    }
}

package io.monitorbackbone.gateway.kafka;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last counts {@link LogReader} made past a page or from a lag's start, by monitor and start seq, so that a count
 * from the same seq continues where that one stopped ({@link PageScan#continueAfter}). Bounded: the least recently
 * used are dropped, and a monitor keeps only its newest start (a reader that drains moves it on; two readers of one
 * monitor at different places each miss now and then, which costs a read, never a wrong count).
 */
final class CountsAfterPages {
    static final int DEFAULT_ENTRIES = 1_024;

    private final Map<String, PageScan.Counted> byMonitor;

    CountsAfterPages(int entries) {
        this.byMonitor = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, PageScan.Counted> eldest) {
                return size() > entries;
            }
        };
    }

    /** The count that started at {@code from}, or null. */
    synchronized PageScan.Counted get(String monitorId, long from) {
        PageScan.Counted known = byMonitor.get(monitorId);
        return known != null && known.from() == from ? known : null;
    }

    /** Keeps a count that read further than the one kept for the same start, or one from another start. */
    synchronized void put(String monitorId, PageScan.Counted counted) {
        if (counted == null) {
            return;
        }
        PageScan.Counted known = byMonitor.get(monitorId);
        if (known == null || known.from() != counted.from() || counted.to() > known.to()) {
            byMonitor.put(monitorId, counted);
        }
    }
}

"""Where a server's CPU went in a bench window, by thread: a sampler beside a run, and the split of one window.

    python3 docs/bench/thread-split.py sample PID OUT.jsonl      # until the process ends; every 0.5 s
    python3 docs/bench/thread-split.py split OUT.jsonl FROM_MS TO_MS

FROM_MS and TO_MS are epoch milliseconds, as the bench's JSON gives a window (scenario 10's `from_epoch_ms` and
`to_epoch_ms`, also under `backlog`). Threads are grouped by their kernel name (15 characters) with digits as N; the
JIT's compiler threads show as `CN CompilerThre`. Unlike a JFR execution sample, this counts time in native code too
(the broker's network and disk I/O)."""
import collections, json, os, re, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_threads import threads_cpu  # noqa: E402


def sample(pid, out):
    with open(out, 'w') as f:
        while os.path.exists('/proc/%d' % pid):
            snap = {}
            for tid, cpu in threads_cpu(pid).items():
                try:
                    snap[tid] = (open('/proc/%d/task/%d/comm' % (pid, tid)).read().strip(), cpu)
                except OSError:
                    pass  # ended between the two reads
            f.write(json.dumps({'t': time.time(), 's': snap}) + '\n')
            f.flush()
            time.sleep(0.5)


def split(path, from_ms, to_ms):
    snaps = [json.loads(line) for line in open(path)]
    a = min(snaps, key=lambda s: abs(s['t'] - from_ms / 1000))
    b = min(snaps, key=lambda s: abs(s['t'] - to_ms / 1000))
    seconds = b['t'] - a['t']
    if seconds <= 0:
        sys.exit('the window is shorter than the sampling interval')
    groups = collections.Counter()
    for tid, (name, cpu) in b['s'].items():
        spent = cpu - a['s'].get(tid, (name, 0))[1]
        if spent > 0:
            groups[re.sub(r'\d+', 'N', name)] += spent
    total = sum(groups.values())
    print('window %.2f s, process CPU %.2f s (%.0f%% of one core)' % (seconds, total, 100 * total / seconds))
    for name, spent in groups.most_common(15):
        print('  %6.2f s  %5.1f%%  %s' % (spent, 100 * spent / seconds, name))


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'sample':
        sample(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == 'split':
        split(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
    else:
        sys.exit(__doc__)

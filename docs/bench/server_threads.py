"""CPU per thread of a server process, for the measuring scripts beside this file (projector-cost.py,
many-monitors.py): seconds from /proc/PID/task/*/stat, thread names from jstack."""
import os, re, subprocess

TICK = os.sysconf('SC_CLK_TCK')


def threads_cpu(pid):
    """{native thread id: user + system CPU-s so far}"""
    d = {}
    for tid in os.listdir('/proc/%d/task' % pid):
        try:
            f = open('/proc/%d/task/%s/stat' % (pid, tid)).read()
            parts = f[f.rindex(')') + 2:].split()
            d[int(tid)] = (int(parts[11]) + int(parts[12])) / TICK
        except Exception:
            pass  # the thread ended between the listing and the read
    return d


def names(pid):
    """{native thread id: Java thread name}"""
    txt = subprocess.run(['jstack', str(pid)], capture_output=True, text=True).stdout
    m = {}
    for line in txt.splitlines():
        g = re.match(r'^"(.*?)".*nid=(0x[0-9a-f]+)', line)
        if g:
            m[int(g.group(2), 16)] = g.group(1)
    return m


BROKER_THREADS = re.compile(r'data-plane|kafka-request|kafka-network|quorum|raft|controller|group-coordinator|'
                            r'ReplicaFetcher|kafka-log|LogDirFailure|executor-|kafka-scheduler|ExpirationReaper|'
                            r'transaction|share-coordinator|broker-|node-|metadata|SASL')

# The gateway's threads as projector-cost.py counts them; many-monitors.py counts every mp-* thread not named below.
GATEWAY_THREADS = ('vert.x', 'mp-gateway', 'mp-log-writer', 'mp-follower', 'executor-thread')


def group(name, gateway=GATEWAY_THREADS):
    """A thread's group: unnamed (no Java name), projector, leases, broker (the embedded one), JIT, GC, gateway, other."""
    if name is None: return 'unnamed'
    if 'mp-projector' in name: return 'projector'
    if 'mp-leases' in name: return 'leases'
    if BROKER_THREADS.search(name): return 'broker'
    if 'CompilerThread' in name: return 'JIT'
    if 'GC' in name or 'G1' in name: return 'GC'
    if any(g in name for g in gateway): return 'gateway'
    return 'other'

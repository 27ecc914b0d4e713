#!/usr/bin/env python3
"""Server CPU per observation by thread group, publishing until the hosted projector has folded everything
(docs/benchmarks.md, 2026-12-04 and 2026-12-06).
usage: python3 docs/bench/projector-cost.py <copy of gateway/target/quarkus-app> LABEL OUT.json [single [MONITORS]]
Starts the server (its embedded broker on 19230, HTTP on 18230, data under /tmp/projcost-data), creates one public
monitor, then nine passes of 200 batches of 1,000 observations over 4 connections; after each pass it waits until the
projector thread used under 2 % of a core for a second, and sums /proc thread CPU by group (names from jstack).
The first three passes warm the server up; the last six are the result.
With `single`: MONITORS (default 1) monitors, and each pass is 24,000 publishes of one observation per request over
16 connections (connection i to monitor i mod MONITORS), as scenario 2 sends them. A Python client: its rate is the
client's as much as the server's; the CPU per observation is the server's."""
import json, os, subprocess, sys, threading, time, http.client, shutil, collections
import server_threads
jar, label, out = sys.argv[1], sys.argv[2], sys.argv[3]
port, kport = 18230, 19230
data = '/tmp/projcost-data'
shutil.rmtree(data, ignore_errors=True)
env = dict(os.environ, MP_PORT=str(port), MP_KAFKA_PORT=str(kport), MP_DATA=data)
log = open('/tmp/projcost-%s.log' % label, 'w')
srv = subprocess.Popen(['java', '-jar', jar + '/quarkus-run.jar'], env=env, stdout=log, stderr=log)
def req(method, path, body=None, token=None):
    c = http.client.HTTPConnection('127.0.0.1', port, timeout=60)
    h = {'Content-Type': 'application/json'}
    if token: h['Authorization'] = 'Bearer ' + token
    c.request(method, path, body=body, headers=h)
    r = c.getresponse(); b = r.read(); c.close()
    return r.status, b
import atexit
atexit.register(lambda: srv.kill())
for i in range(120):
    try:
        if req('GET', '/mp/v0/discover')[0] == 200: break
    except Exception: pass
    time.sleep(0.5)
single = len(sys.argv) > 4 and sys.argv[4] == 'single'
monitors = int(sys.argv[5]) if single and len(sys.argv) > 5 else 1
def create(mid):
    st, b = req('POST', '/mp/v0/monitors', json.dumps({"id": mid, "name": "P", "horizon": "minute",
        "capabilities": ["observe"], "visibility": "public", "types": ["demo.v"]}))
    assert st == 201, (st, b[:300])
    return json.loads(b)["owner_token"]
ids = ["pp%d" % i for i in range(monitors)] if single else ["pp"]
tokens = [create(mid) for mid in ids]
def batch(k):
    obs = [{"type": "demo.v", "subject": "s%d" % ((k * 1000 + i) % 50), "actor": "probe:p%d" % (i % 4), "tier": "measured",
            "origin": "probe", "data": {"v": i, "status": "ok", "note": "x" * 120}} for i in range(1000)]
    return json.dumps({"observations": obs}).encode()
bodies = [] if single else [batch(k) for k in range(8)]
PER_PASS = 24000 if single else 200000
def publish_batches(threads=4):
    n_batches = PER_PASS // 1000
    def work(t):
        c = http.client.HTTPConnection('127.0.0.1', port, timeout=60)
        for k in range(t, n_batches, threads):
            c.request('POST', '/mp/v0/monitors/pp/observations/batch', body=bodies[k % 8],
                      headers={'Content-Type': 'application/json', 'Authorization': 'Bearer ' + tokens[0]})
            r = c.getresponse(); r.read()
            assert r.status == 200, r.status
        c.close()
    return work, threads
def publish_single(threads=16):
    def work(t):
        m = t % monitors
        body = json.dumps({"type": "demo.v", "subject": "s-%d" % t, "actor": "probe:p%d" % (t % 4), "tier": "measured",
                           "origin": "probe", "data": {"n": 1}}).encode()
        headers = {'Content-Type': 'application/json', 'Authorization': 'Bearer ' + tokens[m]}
        c = http.client.HTTPConnection('127.0.0.1', port, timeout=60)
        for k in range(t, PER_PASS, threads):
            c.request('POST', '/mp/v0/monitors/%s/observations' % ids[m], body=body, headers=headers)
            r = c.getresponse(); r.read()
            assert r.status == 201, r.status
        c.close()
    return work, threads
def publish():
    work, threads = publish_single() if single else publish_batches()
    ts = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    [t.start() for t in ts]; [t.join() for t in ts]
threads_cpu = lambda: server_threads.threads_cpu(srv.pid)
names = lambda: server_threads.names(srv.pid)
# Every thread named mp-projector…: the fold loops and their clients' threads (until 2026-12-07 the Streams app's
# stream thread and producer, which the JSON of earlier runs names 'projector (stream thread, its producer)').
LABELS = {'unnamed': 'other (unnamed native)', 'projector': 'projector (its threads and clients)',
          'broker': 'embedded broker'}
def group(n):
    g = server_threads.group(n)
    return LABELS.get(g, g)
def projector_busy(a, b, m):
    return sum(b.get(t, 0) - a.get(t, 0) for t in b if 'mp-projector' in (m.get(t) or ''))
# Warm-up: 3 passes, each followed by the projector going quiet.
m = names()
def settle():
    while True:
        a = threads_cpu(); time.sleep(1.0); b = threads_cpu()
        if projector_busy(a, b, m) < 0.02: return
results = []
for p in range(3 + 6):
    t0 = time.time(); a = threads_cpu()
    publish()
    t1 = time.time()
    settle()
    m.update(names())
    b = threads_cpu(); t2 = time.time()
    g = collections.Counter()
    for t in b:
        g[group(m.get(t))] += b[t] - a.get(t, 0)
    res = {'pass': p, 'observations': PER_PASS, 'publish_s': round(t1 - t0, 2), 'to_idle_s': round(t2 - t0, 2),
           'obs_per_s': round(PER_PASS / (t1 - t0)), 'cpu_s': {k: round(v, 2) for k, v in g.items()},
           'cpu_s_total': round(sum(g.values()), 2)}
    print(label, json.dumps(res), flush=True)
    if p >= 3: results.append(res)
srv.terminate()
try: srv.wait(30)
except Exception: srv.kill()
json.dump({'label': label, 'jar': jar, 'mode': 'single' if single else 'batches', 'monitors': monitors, 'measured': results}, open(out, 'w'), indent=1)

#!/usr/bin/env python3
"""Server CPU per thread group while one of many monitors takes single publishes (docs/benchmarks.md, 2026-12-06,
"Many monitors").
usage: python3 docs/bench/many-monitors.py <copy of gateway/target/quarkus-app> LABEL MONITORS RATE
Starts the server (its embedded broker on 19231, HTTP on 18231, management on 19232, data under /tmp/fm-data),
creates MONITORS public monitors fm0..., waits 30 s, then two 60 s windows of single publishes at RATE/s to fm0 over
one connection (RATE 0: no requests in them either), then 60 s with no requests; prints one JSON line per window: CPU-s by thread group from /proc, names
from jstack. MM_SUBS=N subscribes N pull readers to each monitor first (default 0). MM_JFR=FILE records the second window with JFR (settings=profile) into FILE."""
import json, os, subprocess, sys, time, http.client, shutil, collections
import atexit, server_threads
jar, label, monitors, rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
port, kport = 18231, 19231
data = '/tmp/fm-data'
shutil.rmtree(data, ignore_errors=True)
env = dict(os.environ, MP_PORT=str(port), MP_KAFKA_PORT=str(kport), MP_DATA=data, MP_MANAGEMENT_PORT='19232')
log = open('/tmp/many-monitors-%s.log' % label, 'w')
srv = subprocess.Popen(['java', '-jar', jar + '/quarkus-run.jar'], env=env, stdout=log, stderr=log)
atexit.register(lambda: srv.kill())
def req(c, method, path, body=None, token=None):
    h = {'Content-Type': 'application/json'}
    if token: h['Authorization'] = 'Bearer ' + token
    c.request(method, path, body=body, headers=h)
    r = c.getresponse(); b = r.read()
    return r.status, b
def conn(): return http.client.HTTPConnection('127.0.0.1', port, timeout=60)
for i in range(240):
    try:
        if req(conn(), 'GET', '/mp/v0/discover')[0] == 200: break
    except Exception: pass
    time.sleep(0.5)
c = conn()
tokens = {}
t0 = time.time()
for i in range(monitors):
    st, b = req(c, 'POST', '/mp/v0/monitors', json.dumps({"id": "fm%d" % i, "name": "F", "horizon": "minute",
        "capabilities": ["observe"], "visibility": "public", "types": ["demo.v"]}))
    assert st == 201, (st, b[:300])
    tokens[i] = json.loads(b)["owner_token"]
print(label, 'created', monitors, 'in', round(time.time() - t0, 1), 's', flush=True)
subs = int(os.environ.get('MM_SUBS', '0'))
t0 = time.time()
for i in range(monitors):
    for k in range(subs):
        st, b = req(c, 'POST', '/mp/v0/subscriptions', json.dumps({"monitor": "fm%d" % i, "subscriber": "agent:r%d" % k,
            "capabilities": ["observe"]}))
        assert st == 201, (st, b[:300])
if subs: print(label, 'subscribed', subs, 'per monitor in', round(time.time() - t0, 1), 's', flush=True)
threads_cpu = lambda: server_threads.threads_cpu(srv.pid)
names = lambda: server_threads.names(srv.pid)
def group(n):
    g = server_threads.group(n, gateway=('vert.x', 'mp-', 'executor-thread'))
    return 'other' if g == 'unnamed' else g
time.sleep(30)
c = conn()
body = json.dumps({"type": "demo.v", "subject": "s", "actor": "probe:p", "tier": "measured", "origin": "probe", "data": {"n": 1}})
def window(publishing):
    m = names(); a = threads_cpu(); t0 = time.time(); n = 0
    while time.time() - t0 < 60:
        if publishing:
            st, b = req(c, 'POST', '/mp/v0/monitors/fm0/observations', body, tokens[0]); assert st == 201, st; n += 1
            nxt = t0 + n / rate
            d = nxt - time.time()
            if d > 0: time.sleep(d)
        else:
            time.sleep(1)
    b = threads_cpu(); m.update(names())
    g = collections.Counter(); th = collections.Counter()
    for t in b:
        g[group(m.get(t))] += b[t] - a.get(t, 0); th[m.get(t) or 'unnamed'] += b[t] - a.get(t, 0)
    print(label, json.dumps({'publishing': publishing, 'n': n, 'total': round(sum(g.values()), 2),
                             'cpu_s': {k: round(v, 2) for k, v in sorted(g.items(), key=lambda x: -x[1])},
                             'top_threads': {k: round(v, 2) for k, v in th.most_common(12)}}), flush=True)
window(rate > 0)
jfr = os.environ.get('MM_JFR')
if jfr: subprocess.run(['jcmd', str(srv.pid), 'JFR.start', 'name=w', 'settings=profile'], capture_output=True)
window(rate > 0)
if jfr: print(subprocess.run(['jcmd', str(srv.pid), 'JFR.dump', 'name=w', 'filename=' + jfr], capture_output=True, text=True).stdout)
window(False)
srv.terminate()
try: srv.wait(30)
except Exception: srv.kill()

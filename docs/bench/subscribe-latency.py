#!/usr/bin/env python3
"""How long a monitor's create and a reader's subscribe take on a fresh server (docs/benchmarks.md, 2026-12-07).
usage: python3 docs/bench/subscribe-latency.py <copy of gateway/target/quarkus-app>
Starts the server (HTTP on 18241, its embedded broker on 19241, data under /tmp/subtime-data), creates 10 public
monitors, waits 2 s, subscribes one reader to each, then a second; prints each request's status and milliseconds."""
import json, os, subprocess, sys, time, http.client, shutil
jar = sys.argv[1]; port, kport = 18241, 19241
data = '/tmp/subtime-data'; shutil.rmtree(data, ignore_errors=True)
env = dict(os.environ, MP_PORT=str(port), MP_KAFKA_PORT=str(kport), MP_DATA=data, MP_MANAGEMENT_PORT='19242')
srv = subprocess.Popen(['java', '-jar', jar + '/quarkus-run.jar'], env=env, stdout=open('/tmp/subtime.log','w'), stderr=subprocess.STDOUT)
def req(c, m, p, body=None):
    c.request(m, p, body=body, headers={'Content-Type': 'application/json'}); r = c.getresponse(); return r.status, r.read()
for i in range(240):
    try:
        if req(http.client.HTTPConnection('127.0.0.1', port), 'GET', '/mp/v0/discover')[0] == 200: break
    except Exception: pass
    time.sleep(0.5)
c = http.client.HTTPConnection('127.0.0.1', port)
for i in range(10):
    t = time.time(); st, b = req(c, 'POST', '/mp/v0/monitors', json.dumps({"id": "st%d" % i, "visibility": "public", "capabilities": ["observe"]}))
    print('create', st, round((time.time() - t) * 1000, 1))
time.sleep(2)
for k in range(2):
    for i in range(10):
        t = time.time(); st, b = req(c, 'POST', '/mp/v0/subscriptions', json.dumps({"monitor": "st%d" % i, "subscriber": "agent:r%d" % k, "capabilities": ["observe"]}))
        print('subscribe', k, st, round((time.time() - t) * 1000, 1))
srv.terminate(); srv.wait(30)

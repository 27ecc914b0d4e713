#!/usr/bin/env python3
"""What an idle second gateway reads from Kafka while the first takes publishes, and what a cold read costs.

Usage: python3 docs/bench/fanout-idle-gateway.py AFTER_APP BEFORE_APP [PUBLISHES]

AFTER_APP and BEFORE_APP are quarkus-app directories (gateway/target/quarkus-app of two builds). Gateway A (all
roles, AFTER_APP, its embedded broker) takes the publishes; gateway B (MP_ROLES=gateway, on A's broker) has no reader.
B is started once from each build in turn, in the same session, on the same broker and monitors. For each, the bytes
B's process read (/proc/<pid>/io rchar: its sockets, essentially all of them Kafka fetches once it is idle) during
the publishes are set against the bytes A's producer sent (kafka_producer_outgoing_byte_total on A's /q/metrics).
Then, with the AFTER build as B, a reader's first pull of a monitor B does not follow (cold) is timed against its
second pull (warm). Prints Markdown. Standard library only; kills every process it started.
"""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

MONITORS = 20
DATA_BYTES = 2000


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, app, data, env):
        self.port = free_port()
        self.mgmt = free_port()
        e = dict(os.environ)
        e.update(env)
        e.update({"MP_DATA": data, "MP_PORT": str(self.port), "MP_MANAGEMENT_PORT": str(self.mgmt)})
        self.log = open(os.path.join(data, "server.log"), "w")
        self.proc = subprocess.Popen(
            ["java", "-Xmx512m", "-jar", os.path.join(app, "quarkus-run.jar")],
            env=e, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 240
        while time.time() < deadline:
            try:
                if self.get("/mp/v0/discover")[0] == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise SystemExit("server exited; see " + self.log.name)
            time.sleep(0.2)
        raise SystemExit("server not ready; see " + self.log.name)

    def conn(self, port=None):
        return http.client.HTTPConnection("127.0.0.1", port or self.port, timeout=120)

    def get(self, path, token=None, port=None):
        c = self.conn(port)
        c.request("GET", path, headers={"Authorization": "Bearer " + token} if token else {})
        r = c.getresponse()
        body = r.read()
        c.close()
        return r.status, body

    def post(self, path, body, token=None, conn=None):
        c = conn or self.conn()
        h = {"Content-Type": "application/json"}
        if token:
            h["Authorization"] = "Bearer " + token
        c.request("POST", path, body=json.dumps(body), headers=h)
        r = c.getresponse()
        data = r.read()
        if conn is None:
            c.close()
        return r.status, json.loads(data)

    def metric(self, name):
        status, body = self.get("/q/metrics", port=self.mgmt)
        total = 0.0
        for m in re.finditer(r"(?m)^" + re.escape(name) + r"(\{[^}]*\})? (\S+)", body.decode()):
            total += float(m.group(2))
        return total

    def rchar(self):
        with open("/proc/%d/io" % self.proc.pid) as f:
            for line in f:
                if line.startswith("rchar:"):
                    return int(line.split()[1])

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def shared_env(data):
    env = {}
    with open(os.path.join(data, "kafka-client.properties")) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            k, v = line.split("=", 1)
            v = v.replace("\\=", "=").replace("\\:", ":").replace("\\\\", "\\")
            env["KAFKA_BOOTSTRAP_SERVERS" if k == "bootstrap.servers" else "MP_KAFKA_" + k.upper().replace(".", "_")] = v
    return env


def publish_all(a, monitors, count):
    c = a.conn()
    for i in range(count):
        m = monitors[i % len(monitors)]
        status, _ = a.post("/mp/v0/monitors/%s/observations" % m[0], {
            "type": "demo.note", "subject": "s-%d" % (i % 50), "data": {"pad": "x" * DATA_BYTES}}, m[1], conn=c)
        assert status == 201, status
    c.close()


def idle_b(a, app, root, env, monitors, count):
    data = tempfile.mkdtemp(dir=root)
    b = Server(app, data, dict(env, MP_ROLES="gateway"))
    try:
        time.sleep(5)  # settle: start-up reads (tables, class loading) are not what is measured
        r0, p0 = b.rchar(), a.metric("kafka_producer_outgoing_byte_total")
        publish_all(a, monitors, count)
        time.sleep(3)  # what B fetches it fetches within its follower's 100 ms fetch wait
        r1, p1 = b.rchar(), a.metric("kafka_producer_outgoing_byte_total")
        logs = b.metric("mp_follower_logs") if "mp_follower_logs" in b.get("/q/metrics", port=b.mgmt)[1].decode() else None
        return r1 - r0, p1 - p0, logs, b
    except BaseException:
        b.stop()
        raise


def main():
    after, before = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    root = tempfile.mkdtemp(prefix="mp-fanout-")
    apps = {}
    for name, app in (("after", after), ("before", before)):
        apps[name] = os.path.join(root, name)
        shutil.copytree(app, apps[name])
    servers = []
    try:
        data_a = os.path.join(root, "a")
        os.mkdir(data_a)
        a = Server(apps["after"], data_a, {"MP_KAFKA_PORT": str(free_port())})
        servers.append(a)
        monitors = []
        for i in range(MONITORS):
            status, r = a.post("/mp/v0/monitors", {"id": "fan-%d" % i, "visibility": "public", "types": ["demo.note"]})
            assert status == 201, r
            monitors.append(("fan-%d" % i, r["owner_token"]))
        publish_all(a, monitors, 200)  # warm-up
        env = shared_env(data_a)
        rows = []
        cold = []
        for name in ("before", "after", "before", "after"):
            read, written, logs, b = idle_b(a, apps[name], root, env, monitors, count)
            servers.append(b)
            rows.append((name, read, written, logs))
            if name == "after" and not cold:
                for m in monitors[:10]:
                    status, s = a.post("/mp/v0/subscriptions", {"monitor": m[0], "subscriber": "agent:bench"})
                    assert status == 201, s
                    sub, token = s["subscription"]["id"], s["token"]
                    t0 = time.perf_counter()
                    assert b.get("/mp/v0/subscriptions/%s/pull?limit=1" % sub, token)[0] == 200
                    t1 = time.perf_counter()
                    assert b.get("/mp/v0/subscriptions/%s/pull?limit=1" % sub, token)[0] == 200
                    t2 = time.perf_counter()
                    cold.append((t1 - t0, t2 - t1))
            b.stop()
            servers.remove(b)
        print("| gateway B | bytes B read | bytes A's producer sent | ratio | logs B followed |")
        print("| --- | --- | --- | --- | --- |")
        for name, read, written, logs in rows:
            print("| %s | %d | %d | %.3f | %s |" % (name, read, written, read / written, "-" if logs is None else int(logs)))
        cold_ms = sorted(c[0] * 1000 for c in cold)
        warm_ms = sorted(c[1] * 1000 for c in cold)
        print()
        print("first pull (cold) median %.1f ms, max %.1f ms; second pull (warm) median %.1f ms, max %.1f ms; "
              "cold/warm %.2f" % (cold_ms[len(cold_ms) // 2], cold_ms[-1], warm_ms[len(warm_ms) // 2], warm_ms[-1],
                                   cold_ms[len(cold_ms) // 2] / warm_ms[len(warm_ms) // 2]))
        print("load average at end: %s" % open("/proc/loadavg").read().strip())
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

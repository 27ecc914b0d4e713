#!/usr/bin/env python3
"""Lease claim latency, one gateway and two sharing a broker: the issue-5 numbers for docs/benchmarks.md.
Reuses the foundation script's server and client; talks to 127.0.0.1 only and kills what it started."""
import importlib.util, os, shutil, signal, sys, tempfile, time

spec = importlib.util.spec_from_file_location("foundation", os.path.join(os.path.dirname(__file__), "bench-foundation.py"))
f = importlib.util.module_from_spec(spec)
spec.loader.exec_module(f)
CLAIMS, WARM = 200, 20

def claims(gateways, monitor):
    """Claims CLAIMS fresh subjects one after another, alternating over the gateways; seconds per claim."""
    c = f.Client(gateways[0].port)
    owner = c.call("POST", "/mp/v0/monitors", {"id": monitor, "visibility": "public", "capabilities": ["observe", "act"]})["owner_token"]
    for i in range(WARM + CLAIMS):
        c.call("POST", f"/mp/v0/monitors/{monitor}/observations", {"type": "com.example.job", "subject": f"job-{i}"}, owner)
    r = c.call("POST", "/mp/v0/subscriptions", {"monitor": monitor, "subscriber": "agent:worker", "capabilities": ["observe", "act"]}, owner)
    sub, token = r["subscription"]["id"], r["token"]
    clients = [f.Client(g.port) for g in gateways]
    time.sleep(2)  # every gateway reads the new subscription; this is a benchmark, not a test
    times = []
    for i in range(WARM + CLAIMS):
        t = time.perf_counter()
        clients[i % len(clients)].call("POST", f"/mp/v0/subscriptions/{sub}/leases/claim", {"subject": f"job-{i}"}, token)
        if i >= WARM:
            times.append(time.perf_counter() - t)
    return times

def main():
    work = tempfile.mkdtemp(prefix="mp-bench-leases-")
    try:
        shutil.copytree(f.BUILT, os.path.join(work, "quarkus-app"))
        first = f.Server(work, "first")
        first.start()
        one = claims([first], "solo")
        os.environ["KAFKA_BOOTSTRAP_SERVERS"] = f"127.0.0.1:{first.kafka_port}"
        second = f.Server(work, "second")
        second.start()
        del os.environ["KAFKA_BOOTSTRAP_SERVERS"]
        time.sleep(5)  # the leases service's tasks spread over both instances
        two = claims([first, second], "pair")
        print("| gateways | claims | p50 ms | p90 ms | p99 ms | max ms |")
        print("| --- | --- | --- | --- | --- | --- |")
        for name, t in (("one", one), ("two, alternating", two)):
            cells = [name, len(t), f.ms(f.pct(t, 50)), f.ms(f.pct(t, 90)), f.ms(f.pct(t, 99)), f.ms(max(t))]
            print("| " + " | ".join(str(x) for x in cells) + " |")
    finally:
        for s in f.started:
            s.stop(signal.SIGKILL)
        shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    sys.exit(main())

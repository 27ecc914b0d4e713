#!/usr/bin/env python3
"""Measures the built server: start-up, restart after kill -9, publish latency, long-poll wake-up, pull
throughput and memory. Prints a Markdown section for docs/benchmarks.md. Standard library only, so it runs
wherever the server does; it talks to 127.0.0.1 only and kills every process it started, also on errors."""
import datetime, http.client, json, os, pathlib, shutil, signal, socket, statistics, subprocess, sys
import tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILT = os.path.join(ROOT, "gateway", "target", "quarkus-app")
OBS = {"type": "com.example.bench", "subject": "s-1", "data": {"n": 1}}
started = []  # every Server, so a failure anywhere can still kill them

class BenchError(Exception):
    pass

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def pct(values, p):
    # Nearest rank, so a reported p99 is a latency that was actually observed.
    v = sorted(values)
    return v[max(0, min(len(v) - 1, round(p / 100 * len(v)) - 1))]

def ms(seconds):
    return f"{seconds * 1000:.1f}"

def table(head, *rows):
    return ["| " + " | ".join(map(str, r)) + " |" for r in (head, ["---"] * len(head), *rows)] + [""]

class Server:
    def __init__(self, work, name):
        # A copy of the build, so a rebuild of gateway/target during the run cannot pull the jar from under us.
        self.jar, self.data = os.path.join(work, "quarkus-app", "quarkus-run.jar"), os.path.join(work, name + "-data")
        self.port, self.kafka_port = free_port(), free_port()
        self.log_path, self.proc = os.path.join(work, name + ".log"), None
        started.append(self)

    def start(self, timeout=120):
        """Launches the server; returns seconds from launch to the first 200 from discover."""
        env = dict(os.environ, MP_PORT=str(self.port), MP_KAFKA_PORT=str(self.kafka_port), MP_DATA=self.data)
        with open(self.log_path, "ab") as log:
            t0 = time.perf_counter()
            # Its own process group, so one signal reaches everything it forks and Ctrl-C reaches only us.
            self.proc = subprocess.Popen(["java", "-jar", self.jar], cwd=ROOT, env=env, stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        while time.perf_counter() - t0 < timeout:
            if self.proc.poll() is not None:
                raise BenchError(f"server exited with {self.proc.returncode} before it was ready\n{self.log_tail()}")
            c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
            try:
                c.request("GET", "/mp/v0/discover")
                if c.getresponse().status == 200:
                    return time.perf_counter() - t0
            except OSError:
                pass
            finally:
                c.close()
            time.sleep(0.01)
        raise BenchError(f"server not ready on 127.0.0.1:{self.port} after {timeout} s\n{self.log_tail()}")

    def stop(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def rss_mib(self):
        """(VmRSS, VmHWM) in MiB; the broker runs inside this JVM, so this is the whole server."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            fields = dict(line.split(":", 1) for line in f)
        return tuple(int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM"))

    def log_tail(self, lines=30):
        return "".join(pathlib.Path(self.log_path).read_text(errors="replace").splitlines(True)[-lines:])

class Client:
    """One keep-alive HTTP/1.1 connection."""
    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method, path, body=None, token=None):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        self.conn.request(method, path, json.dumps(body).encode() if body is not None else None, headers)
        r = self.conn.getresponse()
        raw = r.read()
        if r.status not in (200, 201):
            raise BenchError(f"{method} {path} answered {r.status}: {raw[:300]!r}")
        return json.loads(raw)

    def monitor(self):
        return self.call("POST", "/mp/v0/monitors", {"id": "bench", "visibility": "public",
                                                     "capabilities": ["observe"]})["owner_token"]

    def publish(self, owner):
        return self.call("POST", "/mp/v0/monitors/bench/observations", OBS, owner)

    def subscribe(self, subscriber):
        r = self.call("POST", "/mp/v0/subscriptions", {"monitor": "bench", "subscriber": subscriber})
        return r["subscription"]["id"], r["token"]

    def pull(self, sub, token, wait=0, limit=50):
        return self.call("GET", f"/mp/v0/subscriptions/{sub}/pull?wait={wait}&limit={limit}", token=token)

    def ack(self, sub, token, cursor):
        self.call("POST", f"/mp/v0/subscriptions/{sub}/ack", {"cursor": cursor}, token)

    def drain(self, sub, token, limit=200):
        """Pulls and acks until caught up; returns (observations, seconds per pull, per pull + ack, in all)."""
        n, pulls, pages, t0 = 0, [], [], time.perf_counter()
        while True:
            t = time.perf_counter()
            page = self.pull(sub, token, 0, limit)
            pulls.append(time.perf_counter() - t)
            n += len(page["observations"])
            self.ack(sub, token, page["next"])
            pages.append(time.perf_counter() - t)
            # `lag` counts from the cursor before this page, so caught up is `next` past `head`.
            if page["next"] > page["head"]:
                return n, pulls, pages, time.perf_counter() - t0

def restarts(work, runs=3, observations=1000):
    """kill -9 of a server whose monitor holds `observations` rows, then a restart on the same data and ports."""
    s = Server(work, "restart")
    s.start()
    c = Client(s.port)
    owner = c.monitor()
    for _ in range(observations):
        c.publish(owner)
    rows = []
    for _ in range(runs):
        s.stop(signal.SIGKILL)
        ready = s.start()
        # Discover answering does not prove the log is writable again; the first publish does.
        t = time.perf_counter()
        Client(s.port).publish(owner)
        rows.append((ready, time.perf_counter() - t))
    s.stop()
    return rows

def long_poll(port, c, owner, rounds=50):
    sub, token = c.subscribe("agent:bench")
    c.drain(sub, token)
    after_answer, after_send = [], []
    for _ in range(rounds):
        got = {}
        def park():
            own = Client(port)
            page = own.pull(sub, token, wait=20)
            got["t"], got["page"] = time.perf_counter(), page
            own.conn.close()
        waiter = threading.Thread(target=park)
        waiter.start()
        time.sleep(0.3)  # long enough for the pull to be parked on the tail
        sent = time.perf_counter()
        c.publish(owner)
        answered = time.perf_counter()
        waiter.join(30)
        if not got.get("page", {}).get("observations"):
            raise BenchError(f"the parked pull did not return the publish: {got.get('page')}")
        after_answer.append(got["t"] - answered)
        after_send.append(got["t"] - sent)
        c.ack(sub, token, got["page"]["next"])
    return after_answer, after_send

def newer_sources(than):
    # The test ./mp uses to decide on a rebuild: a main source or a POM changed after the jar was built.
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = [x for x in dirs if x not in ("target", ".git")]
        if any((f == "pom.xml" or "/src/main/" in d + "/") and os.path.getmtime(os.path.join(d, f)) > than
               for f in files):
            return True
    return False

def machine():
    def cmd(*a):
        r = subprocess.run(a, cwd=ROOT, capture_output=True, text=True)
        return (r.stdout + r.stderr).strip()
    lines = lambda path: pathlib.Path(path).read_text().splitlines()
    cpu = next((l.split(":", 1)[1].strip() for l in lines("/proc/cpuinfo") if l.startswith("model name")), "?")
    mem = next(int(l.split()[1]) for l in lines("/proc/meminfo") if l.startswith("MemTotal"))
    dirty = ", with uncommitted changes" if cmd("git", "status", "--porcelain", "-uno") else ""
    built = os.path.getmtime(os.path.join(BUILT, "quarkus-run.jar"))
    stale = "some main sources are newer" if newer_sources(built) else "no main source is newer"
    return [f"- Commit: {cmd('git', 'rev-parse', '--short', 'HEAD')}{dirty}; server jar built "
            f"{datetime.datetime.fromtimestamp(built):%Y-%m-%d %H:%M}, {stale}",
            f"- Machine: {os.cpu_count()} cores ({cpu}), {mem / 1024 / 1024:.1f} GiB memory, "
            + (cmd("java", "-version").splitlines() or ["java -version said nothing"])[0]]

def measure(work):
    cold = []
    for i in range(3):
        s = Server(work, f"cold{i}")
        cold.append(s.start())
        s.stop()
    warm = restarts(work)
    s = Server(work, "load")
    s.start()
    time.sleep(3)  # past start-up's burst of allocation and compilation, so "idle" means idle
    r = {"cold": cold, "warm": warm, "idle": s.rss_mib()}
    c = Client(s.port)
    owner = c.monitor()
    for _ in range(200):
        c.publish(owner)
    lat, t0 = [], time.perf_counter()
    for _ in range(2000):
        t = time.perf_counter()
        c.publish(owner)
        lat.append(time.perf_counter() - t)
    r["lat"], r["loop"] = lat, time.perf_counter() - t0
    r["wake"] = long_poll(s.port, c, owner)
    for _ in range(10_000):
        c.publish(owner)
    # A second subscriber: the first one subscribing again would re-key its subscription, not start at seq 1.
    r["pull"] = c.drain(*c.subscribe("agent:bench-pull"))
    r["after"] = s.rss_mib()
    s.stop()
    return r

def report(r):
    cold, warm, lat, (n, pulls, pages, total) = r["cold"], r["warm"], r["lat"], r["pull"]
    dist = lambda v: [ms(pct(v, 50)), ms(pct(v, 99)), ms(max(v))]
    runs = lambda v: [*map(ms, v), ms(statistics.median(v))]
    mib = lambda m: [f"{x:.0f}" for x in m]
    return ["", "### Time to ready (launch to first 200 from discover), ms", ""] + table(
        ["start", "run 1", "run 2", "run 3", "median"], ["fresh data dir", *runs(cold)],
        ["after kill -9, 1000 observations", *runs([w[0] for w in warm])],
        ["then the first publish", *runs([w[1] for w in warm])]) + [
        "### Publish: 2000 sequential on one keep-alive connection, after 200 warm-up", ""] + table(
        ["p50 ms", "p90 ms", "p99 ms", "max ms", "publishes/s"],
        [*(ms(pct(lat, p)) for p in (50, 90, 99)), ms(max(lat)), f"{len(lat) / r['loop']:.0f}"]) + [
        "### Long-poll wake-up: 50 rounds, pull parked with wait=20, then one publish", ""] + table(
        ["pull answered, measured from", "p50 ms", "p99 ms", "max ms"],
        ["publish answered", *dist(r["wake"][0])], ["publish sent", *dist(r["wake"][1])]) + [
        f"### Pull: a fresh subscription reads {n} observations, limit=200, acking each page", ""] + table(
        ["observations/s", "pages", "ms per page (pull + ack) p50", "pull ms, first page", "pull ms, last page"],
        [f"{n / total:.0f}", len(pages), ms(pct(pages, 50)), ms(pulls[0]), ms(pulls[-1])]) + [
        "### Server memory (java process, VmRSS; peak is VmHWM), MiB", ""] + table(
        ["when", "RSS", "peak"], ["idle, 3 s after ready", *mib(r["idle"])],
        ["after the runs above", *mib(r["after"])])[:-1]

def main():
    if not shutil.which("java"):
        raise BenchError("java not found on PATH; the server needs Java 17 or newer")
    if not os.path.exists(os.path.join(BUILT, "quarkus-run.jar")):
        raise BenchError(f"{BUILT}/quarkus-run.jar is missing; build it with ./mp build")
    work = tempfile.mkdtemp(prefix="mp-bench-")
    try:
        header, load = ["## Foundation", ""] + machine(), os.getloadavg()[0]
        shutil.copytree(BUILT, os.path.join(work, "quarkus-app"))
        results = measure(work)
        # Other work on the machine shows as load well above the 1 to 2 this benchmark makes by itself.
        header.insert(2, f"- Date: {datetime.date.today()}; load average {load:.2f} at start, "
                         f"{os.getloadavg()[0]:.2f} at end")
    finally:
        for server in started:
            server.stop(signal.SIGKILL)
        shutil.rmtree(work, ignore_errors=True)
    print("\n".join(header + report(results)))

if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so a plain kill still runs the cleanup
    try:
        main()
    except BenchError as e:
        sys.exit(f"bench-foundation: {e}")

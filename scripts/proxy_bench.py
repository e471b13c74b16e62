#!/usr/bin/env python3
"""What the chat proxy adds: many concurrent streamed completions against a fake upstream,
once straight to the upstream and once through `engram serve --upstream-url`, and the
difference.

The server measures its own share too (`engram_proxy_seconds` in /metrics): "prepare", from
a request to its upstream request (the memory search and prompt assembly), and "chunk", each
streamed chunk's wait in the server before its send; their p50/p99 are read off the histogram
(the bucket bound where the count reaches that share). The targets are on these.

Seen from outside, two figures, each a distribution over every request (or chunk):
- before the first upstream byte: from the client sending its request to the upstream
  receiving it (the proxy's memory search and prompt assembly, plus its connect). The client
  puts its send time in the body (a field the proxy passes on); the upstream echoes it with
  its arrival time in the first chunk.
- per chunk: from the upstream writing a chunk (its time is in the chunk) to the client
  reading it.
Times are CLOCK_REALTIME nanoseconds, comparable across the processes of one machine.

The fake upstream runs in its own process. The server gets `--users` users with `--memories`
memories each first, so every request searches a real scope.

--harness cpp|python: who plays the fake upstream and the client. cpp (the default) runs
engram_proxy_load (bench/proxy_load.cc, built beside ENGRAM: `ninja -C build engram_proxy_load`),
the upstream as one process and each phase's client as another, one epoll loop each. python
runs the asyncio upstream and client below. On a 2-core machine the Python pair took most of a
core from the server and their event loops' scheduling noise (a chunk stamped, then written
later; a read timed after other coroutines ran) dominated the tail figures; the C++ pair stamps
its times right at the write() and read() calls. The cpp client also reports "chunk_ms_over",
the share of chunks over 1, 5 and 10 ms.

--stagger: each stream starts at a random moment within one chunk gap, as independent
conversations do; without it all streams start together and their chunks arrive in lockstep,
200 at a time every gap (the worst case for the server's per-chunk wait).

--pin: the server on CPU 0, the client and fake upstream on the other CPUs, so the figures of
the server's share are not those of the harness taking its cores (on a 2-core machine each side
gets one core).

--nice N: the client and the fake upstream run at niceness N, the server at its own. They
share the server's cores here; in use they are other machines. With N = 0 a chunk's wait in
the server includes the moments both cores run harness code.

Usage: scripts/proxy_bench.py ENGRAM [--streams 200] [--requests 5] [--chunks 20]
                              [--gap-ms 50] [--pin] [--stagger] [--nice N]
                              [--harness cpp|python] [--out FILE.json]
"""

import argparse
import asyncio
import concurrent.futures
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request


# ---- the fake upstream --------------------------------------------------------------------

async def upstream_session(reader, writer, chunks, gap_s):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            arrived = time.time_ns()
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = json.loads(await reader.readexactly(length))
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n")
            for i in range(chunks):
                payload = {"choices": [{"index": 0, "delta": {"content": "word "}}],
                           "sent_ns": time.time_ns()}
                if i == 0:
                    payload["bench_sent_ns"] = body.get("bench_sent_ns", 0)
                    payload["arrived_ns"] = arrived
                event = ("data: %s\n\n" % json.dumps(payload)).encode()
                writer.write(b"%x\r\n%s\r\n" % (len(event), event))
                await writer.drain()
                await asyncio.sleep(gap_s)
            done = b"data: [DONE]\n\n"
            writer.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(done), done))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


def run_upstream(port_queue, chunks, gap_s, nice):
    os.nice(nice)
    async def main():
        server = await asyncio.start_server(
            lambda r, w: upstream_session(r, w, chunks, gap_s), "127.0.0.1", 0, backlog=1024)
        port_queue.put(server.sockets[0].getsockname()[1])
        async with server:
            await server.serve_forever()
    asyncio.run(main())


# ---- the client ---------------------------------------------------------------------------

async def read_chunked_events(reader):
    """Yields each SSE `data:` payload (text) of a chunked response as its chunk arrives."""
    status = await reader.readuntil(b"\r\n\r\n")
    if b" 200 " not in status.split(b"\r\n")[0]:
        raise RuntimeError("status: %r" % status[:200])
    pending = b""
    while True:
        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
        if size == 0:
            await reader.readuntil(b"\r\n")
            return
        pending += await reader.readexactly(size)
        await reader.readexactly(2)
        while b"\n\n" in pending:
            event, pending = pending.split(b"\n\n", 1)
            if event.startswith(b"data: "):
                yield event[6:].decode(), time.time_ns()


async def one_stream(port, key, user, requests, pre, per_chunk, errors, delay_s):
    await asyncio.sleep(delay_s)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for _ in range(requests):
            sent = time.time_ns()
            body = json.dumps({"model": "bench", "user": user, "stream": True,
                               "bench_sent_ns": sent,
                               "messages": [{"role": "user",
                                             "content": "what did I say about my trip?"}]})
            writer.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                          "Authorization: Bearer %s\r\nContent-Type: application/json\r\n"
                          "Content-Length: %d\r\n\r\n" % (key, len(body))).encode() + body.encode())
            await writer.drain()
            async for data, received in read_chunked_events(reader):
                if data == "[DONE]":
                    continue
                chunk = json.loads(data)
                if "error" in chunk:
                    errors.append(chunk)
                    continue
                per_chunk.append(received - chunk["sent_ns"])
                if "arrived_ns" in chunk:
                    pre.append(chunk["arrived_ns"] - chunk["bench_sent_ns"])
    except Exception as e:  # noqa: BLE001 - a failed stream is counted, not fatal
        errors.append(repr(e))
    finally:
        writer.close()


async def run_clients(port, streams, requests, users, stagger_s):
    pre, per_chunk, errors = [], [], []
    rng = random.Random(11)
    await asyncio.gather(*(one_stream(port, "bench", "u%d" % (i % users), requests, pre,
                                      per_chunk, errors, rng.uniform(0, stagger_s))
                           for i in range(streams)))
    return pre, per_chunk, errors


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))] / 1e6 if values else float("nan")


def cpu_seconds(pid):
    """User + system CPU seconds a process has used so far (/proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def summary(pre, per_chunk, errors):
    return {"requests": len(pre), "chunks": len(per_chunk), "errors": len(errors),
            "first_error": errors[0] if errors else None,
            "pre_ms": {"p50": pct(pre, 0.5), "p99": pct(pre, 0.99), "max": pct(pre, 1.0)},
            "chunk_ms": {"p50": pct(per_chunk, 0.5), "p99": pct(per_chunk, 0.99),
                         "max": pct(per_chunk, 1.0)}}


# ---- the C++ harness (bench/proxy_load.cc) -----------------------------------------------

def proxy_load_binary(engram):
    path = os.path.join(os.path.dirname(os.path.abspath(engram)), "engram_proxy_load")
    if not os.access(path, os.X_OK):
        sys.exit("%s not found: build it with `ninja -C build engram_proxy_load` (or run with "
                 "--harness python)" % path)
    return path


def start_cpp_upstream(binary, chunks, gap_ms, nice):
    """The fake upstream at niceness `nice` (it inherits this process's CPU affinity); its
    port is the first line it prints."""
    proc = subprocess.Popen([binary, "upstream", "--chunks", str(chunks), "--gap-ms", str(gap_ms)],
                            stdout=subprocess.PIPE, preexec_fn=lambda: os.nice(nice))
    line = proc.stdout.readline()
    if not line:
        sys.exit("engram_proxy_load upstream did not start")
    return proc, int(line)


def stagger_ms(args):
    """Over how long the streams' starts are spread: --spread says (ms), else one chunk gap
    with --stagger, else 0 (all at once)."""
    if args.spread is not None:
        return args.spread
    return args.gap_ms if args.stagger else 0


def run_cpp_client(binary, port, args, raw=None):
    """One phase's client, at niceness --nice: (its summary, the CPU seconds it used). The CPU
    time is the child's own rusage from wait4, read as it is reaped."""
    cmd = [binary, "client", "--port", str(port), "--streams", str(args.streams),
           "--requests", str(args.requests), "--users", str(args.users),
           "--stagger-ms", str(stagger_ms(args)), "--key", "bench",
           "--seed", "11"] + (["--raw", raw] if raw else [])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, preexec_fn=lambda: os.nice(args.nice))
    out = proc.stdout.read()
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    if proc.returncode != 0 or not out.strip():
        sys.exit("engram_proxy_load client failed (exit %d)" % proc.returncode)
    return json.loads(out.decode().strip().splitlines()[-1]), usage.ru_utime + usage.ru_stime


# ---- the server ---------------------------------------------------------------------------

def phase_buckets(url):
    """{phase: [(le, cumulative count)]} of engram_proxy_seconds in /metrics."""
    text = urllib.request.urlopen(url + "/metrics").read().decode()
    buckets = {}
    for line in text.splitlines():
        if line.startswith("engram_proxy_seconds_bucket{"):
            labels, value = line[len("engram_proxy_seconds_bucket{"):].split("} ")
            phase = labels.split('phase="')[1].split('"')[0]
            le = labels.split('le="')[1].split('"')[0]
            buckets.setdefault(phase, []).append((float("inf") if le == "+Inf" else float(le),
                                                  int(value)))
    return buckets


def phase_quantiles(before, after):
    """p50/p99 (ms, bucket bounds) of each phase between two phase_buckets readings."""
    out = {}
    for phase, rows in after.items():
        earlier = dict(before.get(phase, []))
        rows = [(le, n - earlier.get(le, 0)) for le, n in rows]
        total = rows[-1][1]
        q = {}
        for name, share in (("p50", 0.5), ("p99", 0.99)):
            q[name] = next((le * 1000 for le, n in rows if n >= share * total), float("inf"))
        out[phase] = dict(q, count=total,
                          buckets_ms={("%g" % (le * 1000)): n for le, n in rows})
    return out


def warm(url, users):
    """One unstreamed completion per user: every scope's index is loaded before the timing.
    The fake upstream answers each in about a second (it streams), so they go 50 at a time."""
    def one(u):
        req = urllib.request.Request(url + "/v1/chat/completions", method="POST",
                                     data=json.dumps({"model": "bench", "user": "u%d" % u,
                                                      "messages": [{"role": "user",
                                                                    "content": "hello"}]}).encode(),
                                     headers={"Content-Type": "application/json"})
        try:
            urllib.request.urlopen(req).read()
        except Exception:  # noqa: BLE001 - the fake upstream streams even when not asked
            pass
    with concurrent.futures.ThreadPoolExecutor(max_workers=50) as pool:
        list(pool.map(one, range(users)))


def start_engram(engram, workdir, upstream_port, cpus=None, extra=()):
    proc = subprocess.Popen(
        [engram, "--db", os.path.join(workdir, "bench.db"), "serve", "--port", "0",
         "--access-log", "", "--upstream-url", "http://127.0.0.1:%d/v1" % upstream_port,
         "--max-connections-per-ip", "4096", *extra],
        stdout=subprocess.PIPE, stderr=open(os.path.join(workdir, "stderr.log"), "wb"),
        env={k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")},
        preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
    url = proc.stdout.readline().decode().strip()
    return proc, url


def seed(url, users, memories):
    words = ["Kyoto", "Lisbon", "hiking", "sushi", "cello", "marathon", "sister", "garden",
             "allergic", "peanuts", "budget", "Tuesday", "dentist", "trip", "train", "novel"]
    rng = random.Random(7)
    for u in range(users):
        batch = [{"content": "I %s %s in %s" % (rng.choice(["like", "planned", "mentioned"]),
                                                 rng.choice(words), rng.choice(words))}
                 for _ in range(memories)]
        req = urllib.request.Request(url + "/v1/memories/batch", method="POST",
                                     data=json.dumps({"user_id": "u%d" % u, "infer": False,
                                                      "memories": batch}).encode(),
                                     headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req).read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("engram")
    ap.add_argument("--streams", type=int, default=200)
    ap.add_argument("--requests", type=int, default=5)
    ap.add_argument("--chunks", type=int, default=20)
    ap.add_argument("--gap-ms", type=float, default=50)
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--memories", type=int, default=50)
    ap.add_argument("--pin", action="store_true")
    ap.add_argument("--stagger", action="store_true")
    ap.add_argument("--nice", type=int, default=0,
                    help="run the client and the fake upstream at this niceness (the server "
                         "keeps its own), as if they were on other machines")
    ap.add_argument("--harness", choices=["cpp", "python"], default="cpp",
                    help="the fake upstream and the client: engram_proxy_load (C++, beside "
                         "ENGRAM) or asyncio in this script")
    ap.add_argument("--serve-arg", action="append", default=[],
                    help="one more argument for `engram serve` (repeat for several), e.g. "
                         "--serve-arg=--http-edge --serve-arg=direct")
    ap.add_argument("--spread", type=float,
                    help="spread the streams' starts uniformly over this many ms (e.g. one "
                         "request's length, chunks x gap: the requests then arrive evenly, not "
                         "in a burst each time the streams' previous requests end)")
    ap.add_argument("--raw-dir",
                    help="with the C++ harness: write each phase's chunks (the time each was "
                         "written upstream, its delay; ns) to DIR/PHASE.txt")
    ap.add_argument("--out")
    args = ap.parse_args()
    loader = proxy_load_binary(args.engram) if args.harness == "cpp" else None
    server_cpus = None
    if args.pin:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            sys.exit("--pin needs two CPUs")
        server_cpus = {cpus[0]}
        os.sched_setaffinity(0, set(cpus[1:]))  # the upstream process inherits it

    if loader:
        upstream, upstream_port = start_cpp_upstream(loader, args.chunks, args.gap_ms, args.nice)
    else:
        ports = multiprocessing.Queue()
        upstream = multiprocessing.Process(target=run_upstream,
                                           args=(ports, args.chunks, args.gap_ms / 1000,
                                                 args.nice),
                                           daemon=True)
        upstream.start()
        upstream_port = ports.get(timeout=10)
    workdir = tempfile.mkdtemp(prefix="engram-proxy-bench-")
    proc, url = start_engram(os.path.abspath(args.engram), workdir, upstream_port, server_cpus,
                             args.serve_arg)
    try:
        seed(url, args.users, args.memories)
        warm(url, args.users)
        if not loader:  # the cpp client gets its niceness on its own (os.nice is relative)
            os.nice(args.nice)  # after the server started: it keeps the usual priority
        engram_port = int(url.rsplit(":", 1)[1])
        results = {}
        for name, port in [("direct", upstream_port), ("proxy", engram_port),
                           ("direct_again", upstream_port)]:
            if name == "proxy":
                before = phase_buckets(url)
            print("%s: %d streams x %d requests x %d chunks ..." % (
                name, args.streams, args.requests, args.chunks), file=sys.stderr, flush=True)
            pids = {"server": proc.pid, "upstream": upstream.pid}
            if not loader:
                pids["client"] = os.getpid()
            cpu_before = {k: cpu_seconds(v) for k, v in pids.items()}
            wall_before = time.monotonic()
            if loader:
                raw = (os.path.join(args.raw_dir, name + ".txt") if args.raw_dir else None)
                results[name], client_cpu = run_cpp_client(loader, port, args, raw)
            else:
                results[name] = summary(*asyncio.run(
                    run_clients(port, args.streams, args.requests, args.users,
                                stagger_ms(args) / 1000)))
            wall = time.monotonic() - wall_before
            # Each process's share of one core over the phase: what the harness itself takes
            # from the two cores it shares with the server.
            cpu = {k: cpu_seconds(v) - cpu_before[k] for k, v in pids.items()}
            if loader:
                cpu["client"] = client_cpu
            results[name]["cpu_cores"] = {k: round(v / wall, 3) for k, v in cpu.items()}
            print("  " + json.dumps(results[name]), file=sys.stderr, flush=True)
            if name == "proxy":
                results["server_ms"] = phase_quantiles(before, phase_buckets(url))
        base = results["direct"]
        results["added_ms"] = {
            "pre_p50": results["proxy"]["pre_ms"]["p50"] - base["pre_ms"]["p50"],
            "pre_p99": results["proxy"]["pre_ms"]["p99"] - base["pre_ms"]["p99"],
            "chunk_p50": results["proxy"]["chunk_ms"]["p50"] - base["chunk_ms"]["p50"],
            "chunk_p99": results["proxy"]["chunk_ms"]["p99"] - base["chunk_ms"]["p99"]}
        results["setup"] = vars(args) | {"cores": os.cpu_count(),
                                         "server_cpus": sorted(server_cpus or [])}
        text = json.dumps(results, indent=1)
        print(text)
        if args.out:
            with open(args.out, "w") as f:
                f.write(text + "\n")
    finally:
        proc.terminate()
        proc.wait()
        upstream.terminate()
        if loader:
            upstream.wait()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Is what the tracer shows true? Two checks on traces of real programs.

    python bench/trace_truth.py pairs TRACE [TRACE ...]
    python bench/trace_truth.py clocks [--traces 50] [--dir DIR]

**pairs** checks every message a trace matched against what MPI itself said,
apart from the tracer's matching: the send call's own arguments
(communicator, destination, tag, count x type size; a persistent send's from
its MPI_Send_init) and the receive's status on the call that completed it
(source, tag, bytes received by MPI_Get_elements_x). A pair whose send does
not carry its envelope, or whose completing call did not complete a receive
of that envelope and size, is mis-paired. So is an arrow that runs backwards
or an MPI_Ssend that returned before its receive was posted. Sends and
receives left unmatched are listed by function (cancelled requests and
MPI_PROC_NULL are not messages); the program's own source says which must
match. An MPI_Isendrecv's status is not trusted (MPICH 5.0.2 leaves it
unfilled): its receive is checked against the posted envelope.

**clocks** makes two-rank traces of small real programs (examples/trace's
late_p2p and halo4d, bench/trace_overhead_app.c's 8-byte ping-pong, the
mpi4py ring), a mix, and prints per trace the arrows that run backwards on
the global clock and the clock error reported against the error measured
from the messages themselves. On the global clock, with rank 1's times off
by e, a message 0->1 shows recv - send = delay + e and one 1->0 shows
delay - e; delays are >= 0, so e lies in [-min slack(1->0), min slack(0->1)]:
the error is at least max(0, lo, -hi), whatever the synchronization said.
Two ranks on one host that read one invariant counter (rdtsc) need no
estimate (the reported error is 0, and the interval must hold 0); the
synchronization's estimate is then also judged against that counter (its
true error) and the traces are merged again with the estimate alone: its
backward arrows, its reported bound (residual + half the best round trip)
against its true and its measured error.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict, deque
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from mpiscope.trace import merge as tmerge  # noqa: E402
from mpiscope.trace import reader as tr  # noqa: E402
from mpiscope.trace.calls import Comms  # noqa: E402
from mpiscope.trace.record import tracer_library  # noqa: E402

SYNCHRONOUS = {"MPI_Ssend", "MPI_Ssend_c"}


@dataclass
class Env:
    """One side of a message as MPI saw it: the peer is a trace rank."""

    comm: int
    peer: int
    tag: int
    nbytes: int
    func: str
    trusted: bool = True  # from a status MPI fills (not an MPI_Isendrecv's)
    cancelled: bool = False
    used: bool = False


@dataclass
class _Req:
    kind: str  # send | recv | other
    env: Env | None
    persistent: bool
    func: str


class _RankTruth:
    """The sends each call's arguments made and the receives each call's
    statuses completed, per call index of one rank's timeline."""

    def __init__(self, tl: tmerge.Timeline) -> None:
        self.sends: dict[int, list[Env]] = defaultdict(list)
        self.recvs: dict[int, list[Env]] = defaultdict(list)
        self.partitioned = 0
        self.comms = Comms(tl.source.comms)
        self.reqs: dict[int, deque[_Req]] = defaultdict(deque)
        self.probed: dict[int, deque] = defaultdict(deque)
        src = tl.source
        parent = -1
        for i, r in enumerate(tl.records.tolist()):
            t_enter, t_exit, comm_h, handle, _site, nbytes, peer, tag, _root, func, flags, _th = r
            cls, name = src.classes[func], src.functions[func]
            if flags & tr.F_PART:
                self._part(tl, parent, r, cls)
                continue
            parent = i
            comm = self._comm(comm_h, t_enter) if comm_h else None
            finished = t_exit != 0
            made = None
            if cls in ("send", "sendrecv", "isend", "isendrecv"):
                made = self._env(comm, peer, tag, nbytes, name)
                if made:
                    self.sends[i].append(made)
            elif cls == "recv" and finished and not flags & tr.F_CANCELLED:
                self._add(self.recvs[i], self._env(comm, peer, tag, nbytes, name))
            elif cls == "mrecv" and finished and flags & tr.F_MESSAGE and self.probed.get(handle):
                self._add(self.recvs[i], self._env(self.probed[handle].popleft(), peer, tag,
                                                   nbytes, name))
            elif cls == "probe" and flags & tr.F_MESSAGE:
                self.probed[handle].append(comm)
            elif cls == "start" and handle:
                self._start(handle, i)
            elif cls == "partitioned" and name.startswith("MPI_Psend_init"):
                self.partitioned += 1
            elif name == "MPI_Request_free" and self.reqs.get(handle):
                self.reqs[handle].pop()
            if flags & tr.F_REQUEST_NEW:
                kind = "recv" if cls in ("irecv", "recv_init", "isendrecv", "imrecv") else (
                    "send" if cls in ("isend", "send_init") else "other")
                env = made if cls == "isend" else (
                    self._env(comm, peer, tag, nbytes, name) if kind != "other" else None)
                if kind == "recv" and cls == "imrecv":
                    env = Env(-1, peer, tag, nbytes, name)
                self.reqs[handle].append(_Req(kind, env, cls in ("send_init", "recv_init"),
                                              name))

    def _comm(self, handle: int, stamp: int):
        return self.comms.at(handle, stamp)

    @staticmethod
    def _env(comm, peer: int, tag: int, nbytes: int, func: str) -> Env | None:
        if comm is None:
            return None
        if peer in (tr.PEER_ANY_SOURCE,):
            return Env(comm.id, tr.PEER_ANY_SOURCE, tag, nbytes, func)
        if peer < 0 or peer >= len(comm.members):
            return None  # MPI_PROC_NULL: no message
        return Env(comm.id, comm.members[peer], tag, nbytes, func)

    @staticmethod
    def _add(where: list[Env], env: Env | None) -> None:
        if env is not None:
            where.append(env)

    def _start(self, handle: int, index: int) -> None:
        queue = self.reqs.get(handle)
        if queue and queue[-1].kind == "send" and queue[-1].env is not None:
            e = queue[-1].env
            self.sends[index].append(Env(e.comm, e.peer, e.tag, e.nbytes, queue[-1].func))

    def _part(self, tl: tmerge.Timeline, parent: int, r: tuple, cls: str) -> None:
        _te, t_exit, _c, handle, _s, nbytes, peer, tag, _ro, func, flags, _th = r
        if parent < 0:
            return
        prec = tl.records[parent]
        pcls = tl.source.classes[int(prec["func"])]
        pcomm = self._comm(int(prec["comm"]), int(prec["t_enter"])) if prec["comm"] else None
        if flags & tr.F_RECV_HALF and pcls == "sendrecv" and t_exit:
            self._add(self.recvs[parent], self._env(pcomm, peer, tag, nbytes,
                                                    tl.name(parent)))
        elif flags & tr.F_RECV_HALF and pcls == "isendrecv":
            queue = self.reqs.get(int(prec["request"]))
            if queue and queue[-1].kind == "recv":
                queue[-1].env = self._env(pcomm, peer, tag, nbytes, tl.name(parent))
        elif flags & tr.F_COMPLETED and self.reqs.get(handle):
            queue = self.reqs[handle]
            req = queue[0] if queue[0].persistent else queue.popleft()
            if not queue:
                del self.reqs[handle]
            if req.env is None:
                return
            if flags & tr.F_CANCELLED:
                req.env.cancelled = req.kind == "send" and not req.persistent
                return
            if req.kind == "recv":
                posted = req.env
                if req.func.startswith("MPI_Isendrecv"):
                    self.recvs[parent].append(Env(posted.comm, posted.peer, posted.tag,
                                                  posted.nbytes, req.func, trusted=False))
                    return
                got = self._env(self._comm_by_id(tl, posted.comm), peer, tag, nbytes, req.func)
                self._add(self.recvs[parent], got)
        elif flags & tr.F_STARTED:
            self._start(handle, parent)
        elif flags & tr.F_MESSAGE and self.probed.get(handle):
            queue = self.reqs.get(int(prec["request"]))
            comm = self.probed[handle].popleft()
            if queue and queue[-1].env is not None and comm is not None:
                queue[-1].env.comm = comm.id

    def _comm_by_id(self, tl: tmerge.Timeline, comm_id: int):
        return next((d for d in tl.source.comms if d.id == comm_id), None)


def _take(envs: list[Env], ok) -> Env | None:
    for e in envs:
        if not e.used and not e.cancelled and ok(e):
            e.used = True
            return e
    return None


def _posted_fits(e: Env, m: tmerge.Message) -> bool:
    return (e.comm == m.comm_id and e.peer in (m.src, tr.PEER_ANY_SOURCE)
            and e.tag in (m.tag, tr.TAG_ANY) and (e.nbytes < 0 or e.nbytes >= m.bytes))


def check_pairs(path: Path) -> dict:
    merged = tmerge.load(path)
    truth = {tl.rank: _RankTruth(tl) for tl in merged.timelines}
    tl_of = {tl.rank: tl for tl in merged.timelines}
    bad_send: list[str] = []
    bad_recv: list[str] = []
    untrusted = ssend_early = 0
    by_pair: Counter = Counter()
    partitioned = 0
    for m in merged.messages:
        if getattr(m, "partitioned", False):
            partitioned += 1  # a round of MPI_Psend_init to MPI_Precv_init: not checked here
            continue
        s = _take(truth[m.src].sends.get(m.send_index, []),
                  lambda e, m=m: (e.comm, e.peer, e.tag, e.nbytes)
                  == (m.comm_id, m.dst, m.tag, m.bytes))
        r = _take(truth[m.dst].recvs.get(m.recv_index, []),
                  lambda e, m=m: e.trusted and (e.comm, e.peer, e.tag, e.nbytes)
                  == (m.comm_id, m.src, m.tag, m.bytes))
        if r is None:
            r = _take(truth[m.dst].recvs.get(m.recv_index, []),
                      lambda e, m=m: not e.trusted and _posted_fits(e, m))
            untrusted += r is not None
        send_name = tl_of[m.src].name(m.send_index)
        recv_name = tl_of[m.dst].name(m.recv_index)
        what = (f"{send_name}@{m.src}#{m.send_index} -> {recv_name}@{m.dst}#{m.recv_index} "
                f"comm {m.comm_id:#x} tag {m.tag} {m.bytes} B")
        if s is None:
            bad_send.append(what)
        if r is None:
            bad_recv.append(what)
        if send_name in SYNCHRONOUS and m.send_end_ns < m.post_ns:
            ssend_early += 1
        by_pair[(send_name, recv_name)] += 1
    left_sends: Counter = Counter()
    left_recvs: Counter = Counter()
    for rank, t in truth.items():
        for envs in t.sends.values():
            for e in envs:
                if not e.used and not e.cancelled:
                    left_sends[(e.func, rank, e.peer, e.tag)] += 1
        for envs in t.recvs.values():
            for e in envs:
                if not e.used:
                    left_recvs[(e.func, e.peer, rank, e.tag)] += 1
    return {"trace": str(path), "matched": len(merged.messages), "bad_send": bad_send,
            "bad_recv": bad_recv, "untrusted": untrusted, "ssend_early": ssend_early,
            "backwards": merged.backwards, "unmatched_sends": merged.unmatched_sends,
            "unmatched_recvs": merged.unmatched_recvs, "left_sends": left_sends,
            "left_recvs": left_recvs, "by_pair": by_pair,
            "partitioned_inits": sum(t.partitioned for t in truth.values()),
            "partitioned": partitioned}


def print_pairs(res: dict, show: int) -> None:
    mis = len(set(res["bad_send"]) | set(res["bad_recv"]))
    print(f"{res['trace']}: {res['matched']} messages matched; mis-paired {mis} "
          f"(send side disagrees {len(res['bad_send'])}, receive side "
          f"{len(res['bad_recv'])}); checked on the posted envelope (status not filled) "
          f"{res['untrusted']}; backwards {res['backwards']}; MPI_Ssend returned before its "
          f"receive was posted {res['ssend_early']}")
    print(f"  unmatched by the tracer: {res['unmatched_sends']} sends, "
          f"{res['unmatched_recvs']} receives; left by this check: "
          f"{sum(res['left_sends'].values())} sends, {sum(res['left_recvs'].values())} "
          f"receives; partitioned rounds matched {res['partitioned']} (of "
          f"{res['partitioned_inits']} MPI_Psend_init, not checked)")
    for line in (res["bad_send"] + res["bad_recv"])[:show]:
        print("  mis-paired:", line)
    for label, left in (("send", res["left_sends"]), ("receive", res["left_recvs"])):
        for (func, src, dst, tag), n in left.most_common(show):
            print(f"  unmatched {label}: {n} x {func} {src}->{dst} tag {tag}")
    for (s, r), n in res["by_pair"].most_common(show):
        print(f"  pairs {s} -> {r}: {n}")


ROOT = Path(__file__).resolve().parents[1]


def programs(examples: Path, app: Path) -> list[tuple[str, list[str]]]:
    py = sys.executable
    return [
        ("late_p2p send", [str(examples / "late_p2p"), "--late", "send", "--delay-ms", "20",
                           "--trials", "2", "--sizes", "8,65536"]),
        ("late_p2p recv", [str(examples / "late_p2p"), "--late", "recv", "--delay-ms", "20",
                           "--trials", "2", "--sizes", "8,1048576"]),
        ("halo4d 1-D", [str(examples / "halo4d"), "--dims", "1", "--lattice", "8",
                        "--iters", "40"]),
        ("ping-pong 8 B", [str(app), "--mode", "pingpong", "--n", "2000", "--repeats", "1"]),
        ("mpi4py ring", [py, str(ROOT / "examples" / "trace" / "ring_mpi4py.py")]),
    ]


def _slacks(merged: tmerge.Merged) -> tuple[float, float, int, int]:
    """min(recv - send) of the messages 0->1 and 1->0 (inf when none) and their counts."""
    d01 = [m.recv_ns - m.send_ns for m in merged.messages if (m.src, m.dst) == (0, 1)]
    d10 = [m.recv_ns - m.send_ns for m in merged.messages if (m.src, m.dst) == (1, 0)]
    return (min(d01, default=float("inf")), min(d10, default=float("inf")), len(d01), len(d10))


def _at_least(s01: float, s10: float) -> float:
    """The least |error| of rank 1's clock the slacks prove."""
    return max(0.0, -s10, -s01)


def _estimate_only(path: Path) -> tmerge.Merged:
    """The trace merged with the synchronization's estimate for every rank."""
    shift = tmerge.counter_shift
    tmerge.counter_shift = lambda rank, zero: None
    try:
        return tmerge.merge(tr.read_trace(path))
    finally:
        tmerge.counter_shift = shift


def judge_clock(path: Path) -> dict:
    merged = tmerge.load(path)
    r0, r1 = merged.trace.ranks[0], merged.trace.ranks[1]
    s01, s10, n01, n10 = _slacks(merged)
    start = r0.clocks.get(0)
    bound = (abs(start.residual_ns[1]) + start.rtt_all_ns[1] / 2
             if start and len(start.residual_ns) > 1 else float("nan"))
    row = {"messages": (n01, n10), "backwards": merged.backwards, "slack": (s01, s10),
           "exact": 1 in merged.shared_counter, "est_bound": bound}
    row["reported"] = 0.0 if row["exact"] else bound
    row["at_least"] = _at_least(s01, s10)
    exact = tmerge.counter_shift(r1, r0)
    if exact is not None:
        # the estimate's true error at each synchronization against that one's own bound
        estimate = tmerge.clock_function(r1)
        errors, bounds = [], []
        for which, point in sorted(r1.clocks.items()):
            at = tmerge.np.array([point.local_ns])
            errors.append(abs(float(estimate(at)[0] - exact(at)[0])))
            zero = r0.clocks.get(which)
            bounds.append(abs(zero.residual_ns[1]) + zero.rtt_all_ns[1] / 2
                          if zero and len(zero.residual_ns) > 1 else float("nan"))
        row["est_error"] = max(errors)
        row["est_bound"] = max(bounds)
        row["est_over"] = any(e > b for e, b in zip(errors, bounds, strict=True))
        est = _estimate_only(path)
        e01, e10, _, _ = _slacks(est)
        row["est_backwards"] = est.backwards
        row["est_at_least"] = _at_least(e01, e10)
    return row


def make_traces(count: int, out: Path, examples: Path, mpi: str | None) -> list[tuple[str, Path]]:
    profile, lib = tracer_library(mpi)
    app = out / "trace_overhead_app"
    if not app.exists():
        subprocess.run([profile.mpicc, "-O2", str(ROOT / "bench" / "trace_overhead_app.c"),
                        "-o", str(app)], check=True)
    progs = programs(examples, app)
    made = []
    env = dict(os.environ, MPISCOPE_TRACE_LIB=lib)
    for i in range(count):
        name, argv = progs[i % len(progs)]
        trace = out / f"t{i:02d}.trace"
        cmd = [sys.executable, "-m", "mpiscope", "trace", "--np", "2", "--force", "-o",
               str(trace), *(["--mpi", mpi] if mpi else []), "--", *argv]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300,
                              check=False)
        if proc.returncode != 0:
            sys.exit(f"trace {i} ({name}) failed:\n{proc.stderr[-2000:]}")
        made.append((name, trace))
    return made


def _ns(x: float) -> str:
    return "-" if x != x or x == float("inf") else f"{x:.0f}"


def print_clocks(rows: list[tuple[str, dict]]) -> None:
    print(f"{'#':>2}  {'program':<14} {'msgs 0>1/1>0':>12} {'back':>4} {'clock':>8} "
          f"{'reported':>8} {'>= |e|':>7} {'slack 0>1':>9} {'slack 1>0':>9} | "
          f"{'est bound':>9} {'est true':>8} {'est >=':>7} {'est back':>8}")
    for i, (name, r) in enumerate(rows):
        n01, n10 = r["messages"]
        print(f"{i:>2}  {name:<14} {f'{n01}/{n10}':>12} {r['backwards']:>4} "
              f"{'counter' if r['exact'] else 'estimate':>8} {_ns(r['reported']):>8} "
              f"{_ns(r['at_least']):>7} {_ns(r['slack'][0]):>9} {_ns(r['slack'][1]):>9} | "
              f"{_ns(r['est_bound']):>9} {_ns(r.get('est_error', float('nan'))):>8} "
              f"{_ns(r.get('est_at_least', float('nan'))):>7} "
              f"{r.get('est_backwards', '-'):>8}")
    data = [r for _, r in rows]
    ests = [r for r in data if "est_error" in r]
    print(f"traces {len(data)}: backward arrows {sum(r['backwards'] for r in data)} "
          f"(in {sum(1 for r in data if r['backwards'])} traces); clock used: counter "
          f"{sum(r['exact'] for r in data)}, estimate {sum(not r['exact'] for r in data)}; "
          f"reported error below the measured least error in "
          f"{sum(1 for r in data if r['reported'] < r['at_least'])} traces "
          f"(largest measured least error {max(r['at_least'] for r in data):.0f} ns)")
    if ests:
        print(f"the estimate alone (as for ranks on other hosts), {len(ests)} traces: backward "
              f"arrows {sum(r['est_backwards'] for r in ests)} (in "
              f"{sum(1 for r in ests if r['est_backwards'])} traces); its true error (against "
              f"the counter) max {max(r['est_error'] for r in ests):.0f} ns, median "
              f"{sorted(r['est_error'] for r in ests)[len(ests) // 2]:.0f} ns; its bound max "
              f"{max(r['est_bound'] for r in ests):.0f} ns, median "
              f"{sorted(r['est_bound'] for r in ests)[len(ests) // 2]:.0f} ns; a "
              f"synchronization's bound below its true error in "
              f"{sum(1 for r in ests if r['est_over'])} "
              f"traces, below the measured least error in "
              f"{sum(1 for r in ests if r['est_bound'] < r['est_at_least'])}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("pairs", help="check each matched message against MPI's own account")
    p.add_argument("traces", nargs="+", type=Path)
    p.add_argument("--show", type=int, default=8, help="examples of each kind to print")
    c = sub.add_parser("clocks", help="backward arrows and clock error of 2-rank traces")
    c.add_argument("--traces", type=int, default=50)
    c.add_argument("--dir", type=Path, default=None, help="keep the traces here")
    c.add_argument("--examples", type=Path, default=ROOT / "build" / "mpich" / "examples" /
                   "trace", help="where examples/trace is built (late_p2p, halo4d)")
    c.add_argument("--mpi", default=None)
    c.add_argument("--reuse", action="store_true", help="judge the traces already in --dir")
    args = parser.parse_args(argv)
    if args.what == "pairs":
        for path in args.traces:
            print_pairs(check_pairs(path), args.show)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        out = args.dir or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        if args.reuse:
            names = [name for name, _ in programs(args.examples, out)]
            made = [(names[i % len(names)], out / f"t{i:02d}.trace") for i in range(args.traces)]
        else:
            made = make_traces(args.traces, out, args.examples, args.mpi)
        print_clocks([(name, judge_clock(path)) for name, path in made])
    return 0


if __name__ == "__main__":
    sys.exit(main())

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
late_p2p, late_collective, halo4d, an 8-byte ping-pong of bench's
trace_overhead_app, the mpi4py ring) and prints, per trace, the arrows that
run backwards on the global clock, the error bound the trace reports (the
synchronisation's residual plus half its best round trip, or 0 where the
ranks read one counter) and the error measured from the messages: on the
global clock a message takes at least 0 ns, so with offset error e of rank 1
against rank 0, every message 0->1 has recv - send >= -e... the smallest
one-way slack in each direction bounds e from both sides.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict, deque
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from mpiscope.trace import merge as tmerge  # noqa: E402
from mpiscope.trace.reader import (  # noqa: E402
    F_CANCELLED,
    F_COMPLETED,
    F_MESSAGE,
    F_PART,
    F_RECV_HALF,
    F_REQUEST_NEW,
    F_STARTED,
    PEER_ANY_SOURCE,
    TAG_ANY,
)

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
        self.by_handle: dict[int, list] = defaultdict(list)
        for d in tl.source.comms:
            self.by_handle[d.handle].append(d)
        self.reqs: dict[int, deque[_Req]] = defaultdict(deque)
        self.probed: dict[int, deque] = defaultdict(deque)
        src = tl.source
        parent = -1
        for i, r in enumerate(tl.records.tolist()):
            t_enter, t_exit, comm_h, handle, _site, nbytes, peer, tag, _root, func, flags, _th = r
            cls, name = src.classes[func], src.functions[func]
            if flags & F_PART:
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
            elif cls == "recv" and finished and not flags & F_CANCELLED:
                self._add(self.recvs[i], self._env(comm, peer, tag, nbytes, name))
            elif cls == "mrecv" and finished and flags & F_MESSAGE and self.probed.get(handle):
                self._add(self.recvs[i], self._env(self.probed[handle].popleft(), peer, tag,
                                                   nbytes, name))
            elif cls == "probe" and flags & F_MESSAGE:
                self.probed[handle].append(comm)
            elif cls == "start" and handle:
                self._start(handle, i)
            elif cls == "partitioned" and name.startswith("MPI_Psend_init"):
                self.partitioned += 1
            elif name == "MPI_Request_free" and self.reqs.get(handle):
                self.reqs[handle].pop()
            if flags & F_REQUEST_NEW:
                kind = "recv" if cls in ("irecv", "recv_init", "isendrecv", "imrecv") else (
                    "send" if cls in ("isend", "send_init") else "other")
                env = made if cls == "isend" else (
                    self._env(comm, peer, tag, nbytes, name) if kind != "other" else None)
                if kind == "recv" and cls == "imrecv":
                    env = Env(-1, peer, tag, nbytes, name)
                self.reqs[handle].append(_Req(kind, env, cls in ("send_init", "recv_init"),
                                              name))

    def _comm(self, handle: int, stamp: int):
        found = None
        for d in self.by_handle.get(handle, ()):
            if d.created <= stamp:
                found = d
        return found

    @staticmethod
    def _env(comm, peer: int, tag: int, nbytes: int, func: str) -> Env | None:
        if comm is None:
            return None
        if peer in (PEER_ANY_SOURCE,):
            return Env(comm.id, PEER_ANY_SOURCE, tag, nbytes, func)
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
        if flags & F_RECV_HALF and pcls == "sendrecv" and t_exit:
            self._add(self.recvs[parent], self._env(pcomm, peer, tag, nbytes,
                                                    tl.name(parent)))
        elif flags & F_RECV_HALF and pcls == "isendrecv":
            queue = self.reqs.get(int(prec["request"]))
            if queue and queue[-1].kind == "recv":
                queue[-1].env = self._env(pcomm, peer, tag, nbytes, tl.name(parent))
        elif flags & F_COMPLETED and self.reqs.get(handle):
            queue = self.reqs[handle]
            req = queue[0] if queue[0].persistent else queue.popleft()
            if not queue:
                del self.reqs[handle]
            if req.env is None:
                return
            if flags & F_CANCELLED:
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
        elif flags & F_STARTED:
            self._start(handle, parent)
        elif flags & F_MESSAGE and self.probed.get(handle):
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
    return (e.comm == m.comm_id and e.peer in (m.src, PEER_ANY_SOURCE)
            and e.tag in (m.tag, TAG_ANY) and (e.nbytes < 0 or e.nbytes >= m.bytes))


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
          f"receives; partitioned rounds matched {res['partitioned']} (of {res['partitioned_inits']} "
          "MPI_Psend_init, not checked)")
    for line in (res["bad_send"] + res["bad_recv"])[:show]:
        print("  mis-paired:", line)
    for label, left in (("send", res["left_sends"]), ("receive", res["left_recvs"])):
        for (func, src, dst, tag), n in left.most_common(show):
            print(f"  unmatched {label}: {n} x {func} {src}->{dst} tag {tag}")
    for (s, r), n in res["by_pair"].most_common(show):
        print(f"  pairs {s} -> {r}: {n}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("pairs", help="check each matched message against MPI's own account")
    p.add_argument("traces", nargs="+", type=Path)
    p.add_argument("--show", type=int, default=8, help="examples of each kind to print")
    args = parser.parse_args(argv)
    if args.what == "pairs":
        for path in args.traces:
            print_pairs(check_pairs(path), args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())

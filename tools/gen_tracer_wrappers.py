#!/usr/bin/env python3
"""Generate the tracer's MPI wrappers from the MPI standard's machine-readable API.

The list of MPI C functions, their parameters, kinds and directions comes
from the ``pympistandard`` package (the MPI Forum's API description). For
each C function of the standard, and each large-count ``_c`` variant, this
writes one wrapper ``MPI_X`` that records the call and calls ``PMPI_X``,
returning exactly what ``PMPI_X`` returned. What a wrapper records follows
from the parameters' kinds and names (peer, tag, root, communicator, bytes,
requests, statuses); the few calls with a lifecycle or completion meaning
call hand-written hooks (src/tracer/hooks.h).

Every wrapper sits inside ``#if defined(MPISCOPE_TRACE_HAVE_MPI_X) &&
!defined(MPI_X)``: the build probes the MPI's ``mpi.h`` for the PMPI
functions it declares (src/tracer/probe_mpi.cmake), so the same generated
source builds with MPICH 5 (all of MPI 5.0) and Open MPI 5 (no large-count
functions), and skips functions an MPI defines as macros.

Usage: gen_tracer_wrappers.py [--out DIR] [--check]
(default DIR: src/tracer/generated next to this script's repository).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "src" / "tracer" / "generated"

# Function classes written into the trace (docs/trace-format.md lists them).
CLASSES = {
    "other": 0, "send": 1, "recv": 2, "sendrecv": 3, "isend": 4, "irecv": 5,
    "send_init": 6, "recv_init": 7, "start": 8, "completion": 9, "collective": 10,
    "icollective": 11, "collective_init": 12, "probe": 13, "init": 14, "finalize": 15,
    "comm_create": 16, "rma": 17, "file": 18, "isendrecv": 19, "mrecv": 20, "imrecv": 21,
    "partitioned": 22, "tool": 23, "abort": 24,
}
COLLECTIVES = {
    "Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv",
    "Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce", "Reduce_scatter",
    "Reduce_scatter_block", "Scan", "Exscan", "Neighbor_allgather", "Neighbor_allgatherv",
    "Neighbor_alltoall", "Neighbor_alltoallv", "Neighbor_alltoallw",
}
SENDS = {"Send", "Bsend", "Ssend", "Rsend"}
COMPLETIONS = {"Wait", "Test", "Waitall", "Testall", "Waitany", "Testany", "Waitsome", "Testsome"}
# MPI_Request_get_status*: a completion part per request found complete, as
# for the Test it mirrors (its status: a cancelled send is known from it),
# though the request is not freed (docs/trace-format.md)
GET_STATUS = {"Request_get_status": "Test", "Request_get_status_all": "Testall",
              "Request_get_status_any": "Testany", "Request_get_status_some": "Testsome"}
PROBES = {"Probe", "Iprobe", "Mprobe", "Improbe"}
# Blocking communicator constructors that make an id for the new
# communicator by a collective on it; the dup family copies its parent's.
DUPS = {"Comm_dup", "Comm_dup_with_info", "Comm_idup", "Comm_idup_with_info"}
LOCAL_COMMS = {"Comm_spawn", "Comm_spawn_multiple", "Comm_accept", "Comm_connect", "Comm_join",
               "Comm_get_parent", "Comm_f2c", "Comm_fromint"}
COUNT_KINDS = ("POLYXFER_NUM_ELEM", "XFER_NUM_ELEM")

# Hooks of the lifecycle functions: (position, C statement). Positions:
# "first" runs before anything, traced or not; "begin" replaces the usual
# begin (tracing starts inside); "pre" runs before the enter stamp, "call"
# right before PMPI, "post" after the exit stamp, "final" after the record
# is closed.
LIFECYCLE: dict[str, dict[str, str]] = {
    "MPI_Init": {"begin": "mpiscope__trace_init_begin(&c_, {id}, MPISCOPE__TRACE_SITE())",
                 "post": "mpiscope__trace_world_started(&c_, ret_, MPI_THREAD_SINGLE);"},
    "MPI_Init_thread": {"begin": "mpiscope__trace_init_begin(&c_, {id}, MPISCOPE__TRACE_SITE())",
                        "post": "mpiscope__trace_world_started(&c_, ret_, "
                                "ret_ == MPI_SUCCESS ? *provided : required);"},
    "MPI_Session_init": {
        "begin": "mpiscope__trace_init_begin(&c_, {id}, MPISCOPE__TRACE_SITE())",
        "post": "mpiscope__trace_session_started(&c_, ret_);"},
    "MPI_Finalize": {"pre": "mpiscope__trace_world_stopping();",
                     "final": "mpiscope__trace_stopped();"},
    "MPI_Session_finalize": {"pre": "mpiscope__trace_session_stopping();",
                             "final": "mpiscope__trace_stopped();"},
    "MPI_Abort": {"call": "mpiscope__trace_abort(&c_, errorcode);"},
    "MPI_Pcontrol": {"first": "mpiscope__trace_pcontrol(level);"},
}


@dataclass
class Param:
    name: str
    kind: str
    direction: str
    length: Any
    root_only: bool
    decl: str

    @property
    def is_array(self) -> bool:
        return self.length is not None and self.kind not in ("STRING",)


@dataclass
class Function:
    name: str  # MPI_Send_c
    base: str  # Send (without MPI_ and _c)
    large: bool
    ret: str
    params: list[Param]
    varargs: bool
    cls: str = "other"
    group: str = "misc"
    body: list[str] = field(default_factory=list)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def first(self, kind: str, direction: str, scalar: bool = True) -> Param | None:
        return next(
            (p for p in self.params
             if p.kind == kind and p.direction == direction and (not scalar or not p.is_array)),
            None,
        )


def load_functions() -> tuple[str, list[Function]]:
    """Every C function of the standard (and its large-count variant), sorted."""
    import pympistandard as std

    std.use_api_version(1)
    functions: list[Function] = []
    for procedure in std.all_iso_c_procedures():
        express = procedure.express
        for expression, large in ((express.iso_c, False), (express.embiggen, True)):
            if expression is None:
                continue
            iso = expression.iso_c if large else expression
            if iso is None:
                continue
            functions.append(_function(iso, large))
    functions.sort(key=lambda f: f.name)
    return std.__version__, functions


def _function(iso: Any, large: bool) -> Function:
    params: list[Param] = []
    varargs = False
    for p in iso.parameters:
        s = p._parseset
        if s["kind"] == "VARARGS":
            varargs = True
            continue
        decl = str(p)
        if s["kind"] == "ARGUMENT_LIST" and decl == f"char {s['name']}[]":
            decl = f"char *{s['name']}[]"  # pympistandard 0.2.0 drops a '*' here
        params.append(Param(s["name"], s["kind"], s["param_direction"], s["length"],
                            bool(s["root_only"]), decl))
    name = iso.name
    base = name[len("MPI_"):]
    if large and base.endswith("_c"):
        base = base[:-2]
    return Function(name, base, large, iso.return_type, params, varargs)


# --- classification ----------------------------------------------------------

def classify(f: Function) -> None:
    b = f.base
    plain = b[:-5] if b.endswith("_init") and b[:-5] in COLLECTIVES else b
    if f.name in ("MPI_Init", "MPI_Init_thread", "MPI_Session_init"):
        f.cls = "init"
    elif f.name in ("MPI_Finalize", "MPI_Session_finalize"):
        f.cls = "finalize"
    elif f.name == "MPI_Abort":
        f.cls = "abort"
    elif b in SENDS:
        f.cls = "send"
    elif b == "Recv":
        f.cls = "recv"
    elif b in ("Sendrecv", "Sendrecv_replace"):
        f.cls = "sendrecv"
    elif b in ("Isendrecv", "Isendrecv_replace"):
        f.cls = "isendrecv"
    elif b[0] == "I" and b[1:].capitalize() in SENDS:
        f.cls = "isend"
    elif b == "Irecv":
        f.cls = "irecv"
    elif b == "Mrecv":
        f.cls = "mrecv"
    elif b == "Imrecv":
        f.cls = "imrecv"
    elif b.endswith("_init") and b[:-5] in SENDS:
        f.cls = "send_init"
    elif b == "Recv_init":
        f.cls = "recv_init"
    elif b in ("Psend_init", "Precv_init", "Pready", "Pready_list", "Pready_range", "Parrived"):
        f.cls = "partitioned"
    elif b in ("Start", "Startall"):
        f.cls = "start"
    elif b in COMPLETIONS:
        f.cls = "completion"
    elif b in PROBES:
        f.cls = "probe"
    elif b in COLLECTIVES:
        f.cls = "collective"
    elif b[0] == "I" and b[1:].capitalize() in COLLECTIVES:
        f.cls = "icollective"
    elif b.endswith("_init") and plain in COLLECTIVES:
        f.cls = "collective_init"
    elif any(p.kind == "COMMUNICATOR" and p.direction == "out" for p in f.params):
        f.cls = "comm_create"
    elif b.startswith("T_"):
        f.cls = "tool"
    elif b.startswith("File_"):
        f.cls = "file"
    elif b.startswith("Win_") or b in ("Put", "Get", "Accumulate", "Get_accumulate",
                                        "Fetch_and_op", "Compare_and_swap", "Rput", "Rget",
                                        "Raccumulate", "Rget_accumulate"):
        f.cls = "rma"
    f.group = _group(f)


def _group(f: Function) -> str:
    """Which generated file holds the wrapper (small files, one family each)."""
    if f.cls in ("send", "recv", "sendrecv", "isend", "irecv", "send_init", "recv_init",
                 "start", "completion", "probe", "mrecv", "imrecv", "isendrecv",
                 "partitioned") or f.base.startswith("Request") or f.base.startswith("Buffer"):
        return "p2p"
    if f.cls in ("collective", "icollective", "collective_init"):
        return "coll"
    if f.cls == "rma":
        return "rma"
    if f.cls == "file":
        return "file"
    if f.cls == "tool":
        return "tool"
    if f.base.startswith(("Comm_", "Group_", "Cart", "Graph", "Dist_graph", "Intercomm_",
                          "Session_", "Topo_", "Neighbor")):
        return "comm"
    if f.base.startswith(("Type_", "Pack", "Unpack", "Get_elements", "Get_count", "Op_",
                          "Reduce_local", "Status_")):
        return "type"
    return "misc"


# --- wrapper bodies ----------------------------------------------------------

def _count_pairs(f: Function) -> list[tuple[Param, Param]]:
    """(count, datatype) pairs: a count parameter followed by its datatype."""
    pairs = []
    for i, p in enumerate(f.params[:-1]):
        nxt = f.params[i + 1]
        if (p.kind.startswith(COUNT_KINDS) and p.direction == "in" and nxt.kind == "DATATYPE"
                and nxt.direction == "in"):
            pairs.append((p, nxt))
        elif (p.kind.startswith(COUNT_KINDS) and p.is_array and p.direction == "in"
              and i + 2 < len(f.params) and f.params[i + 2].kind == "DATATYPE"
              and f.params[i + 1].kind.startswith("POLYDISPLACEMENT")):
            pairs.append((p, f.params[i + 2]))  # counts, displs, type(s)
    return pairs


def _bytes_expr(f: Function, count: Param, dtype: Param) -> str | None:
    suffix = "_c" if f.large else ""
    if not count.is_array:
        return f"mpiscope__trace_bytes({count.name}, {dtype.name})"
    if f.base.startswith(("Neighbor", "Ineighbor")):
        return None  # the count of neighbors depends on the topology
    comm = f.first("COMMUNICATOR", "in")
    if comm is None:
        return None
    if dtype.is_array:
        return f"mpiscope__trace_bytes_w{suffix}({count.name}, {dtype.name}, {comm.name})"
    return f"mpiscope__trace_bytes_v{suffix}({count.name}, {dtype.name}, {comm.name})"


def _bytes_lines(f: Function) -> list[str]:
    """c_.r->bytes from the first (count, datatype) pair valid on every rank.

    A pair whose buffer may be MPI_IN_PLACE is guarded: its count and type
    are then ignored by MPI and may hold anything, so the other side's pair
    is used (a send pair in place falls back to the receive pair, which is
    then valid: MPI_IN_PLACE as send buffer is only allowed where it is).
    """
    all_pairs = _count_pairs(f)
    pairs = [pq for pq in all_pairs if not (pq[0].root_only or pq[1].root_only)]
    if not pairs:
        return []
    count, dtype = pairs[0]
    expr = _bytes_expr(f, count, dtype)
    if expr is None:
        return []
    sendbuf, recvbuf = f.param("sendbuf"), f.param("recvbuf")
    if sendbuf is not None and count.name.startswith("send"):
        fallback = next(((c, d) for c, d in all_pairs if c.name.startswith("recv")), None)
        fb = _bytes_expr(f, *fallback) if fallback else None
        if fb is None:
            return [f"if ({sendbuf.name} != MPI_IN_PLACE)", f"    c_.r->bytes = {expr};"]
        return [f"c_.r->bytes = {sendbuf.name} != MPI_IN_PLACE ? {expr} : {fb};"]
    if recvbuf is not None and count.name.startswith("recv"):
        return [f"if ({recvbuf.name} != MPI_IN_PLACE)", f"    c_.r->bytes = {expr};"]
    return [f"c_.r->bytes = {expr};"]


def _window_lines(f: Function) -> list[str]:
    """An RMA call's window in `comm`, flagged (the window's communicator
    and group are known from its creation, docs/trace-format.md)."""
    window = f.first("WINDOW", "in") or f.first("WINDOW", "inout")
    if window is None or f.cls != "rma":
        return []
    deref = "*" if window.direction == "inout" else ""
    return [f"c_.r->comm = MPISCOPE__H({deref}{window.name});",
            "c_.r->flags |= MPISCOPE_TRACE_F_WINDOW;"]


def _file_lines(f: Function) -> list[str]:
    """An MPI-IO call's file handle in `comm`, flagged; a data access at an
    explicit offset (the *_at calls): the offset in `tag` (high 32 bits) and
    `root` (low), flagged (docs/trace-format.md)."""
    if not f.base.startswith("File_"):
        return []
    lines = []
    handle = f.first("FILE", "in") or f.first("FILE", "inout")
    if handle is not None:
        deref = "*" if handle.direction == "inout" else ""
        lines += [f"c_.r->comm = MPISCOPE__H({deref}{handle.name});",
                  "c_.r->flags |= MPISCOPE_TRACE_F_FILE;"]
    offset = f.param("offset")
    if offset is not None and "_at" in f.base:
        lines += [f"c_.r->root = (int32_t)(uint32_t)((uint64_t){offset.name} & 0xffffffffu);",
                  f"c_.r->tag = (int32_t)(uint32_t)((uint64_t){offset.name} >> 32);",
                  "c_.r->flags |= MPISCOPE_TRACE_F_OFFSET;"]
    return lines


def _call_args(f: Function, substitutes: dict[str, str]) -> str:
    return ", ".join(substitutes.get(p.name, p.name) for p in f.params)


def build_body(f: Function) -> list[str]:
    """The statements of the traced path; the untraced path calls PMPI as is."""
    fid = f"MPISCOPE_TRACE_FN_{f.name}"
    hooks = LIFECYCLE.get(f.name, {})
    plain_args = _call_args(f, {})
    ret_void = f.ret == "void"
    lines = [hooks["first"]] if "first" in hooks else []
    lines.append("mpiscope__trace_call_t c_;")
    if "begin" in hooks:
        lines.append(hooks["begin"].format(id=fid) + ";")
    else:
        lines += [f"if (!mpiscope__trace_begin(&c_, {fid}, MPISCOPE__TRACE_SITE()))",
                  f"    return P{f.name}({plain_args});"]
    subst: dict[str, str] = {}
    pre: list[str] = []
    post: list[str] = []

    comm = f.first("COMMUNICATOR", "in")
    if comm is not None:
        pre.append(f"c_.r->comm = MPISCOPE__H({comm.name});")
    for p in f.params:
        if p.is_array or p.direction != "in":
            continue
        # the target of a send or one-sided call (Win_lock's, Win_flush's rank;
        # Win_shared_query accepts MPI_PROC_NULL)
        if p.kind in ("RANK", "RANK_NNI") and (p.name in ("dest", "target_rank")
                                               or p.name == "rank" and f.cls == "rma"):
            pre.append(f"c_.r->peer = mpiscope__trace_peer({p.name});")
        elif p.kind in ("RANK", "RANK_NNI") and p.name == "source" and not f.param("dest"):
            pre.append(f"c_.r->peer = mpiscope__trace_peer({p.name});")
        elif p.kind in ("RANK", "RANK_NNI") and p.name == "root":
            pre.append(f"c_.r->root = {p.name};")
        elif p.kind == "TAG" and p.name in ("tag", "sendtag"):
            pre.append(f"c_.r->tag = {p.name};")
        elif p.kind == "PARTITION" and p.name in ("partitions", "partition", "partition_low"):
            pre.append(f"c_.r->root = {p.name};")  # partitions of Psend_init; Pready's one
        elif p.kind == "PARTITION" and p.name == "partition_high":
            pre.append(f"c_.r->tag = {p.name};")
    pre += _bytes_lines(f)
    pre += _window_lines(f) + _file_lines(f)

    status = f.first("STATUS", "out")
    peek = f.base in GET_STATUS
    if status is not None and (f.cls in ("recv", "sendrecv", "probe", "mrecv", "completion")
                               or peek):
        pre.append(f"MPI_Status st_, *{status.name}_ = "
                   f"{status.name} == MPI_STATUS_IGNORE ? &st_ : {status.name};")
        subst[status.name] = f"{status.name}_"
    statuses = f.first("STATUS", "out", scalar=False)
    if statuses is not None and statuses.is_array and (f.cls == "completion" or peek):
        n = "incount" if f.param("incount") else "count"
        pre.append(f"MPI_Status *{statuses.name}_ = "
                   f"mpiscope__trace_statuses(&c_, {statuses.name}, {n});")
        subst[statuses.name] = f"{statuses.name}_"

    message = f.first("MESSAGE", "inout")
    if message is not None and f.cls == "imrecv":  # request holds the new request
        pre.append(f"uint64_t message_ = MPISCOPE__H(*{message.name});")
        post.append("if (ret_ == MPI_SUCCESS) mpiscope__trace_message_part(&c_, message_);")
    elif message is not None:
        pre.append(f"c_.r->request = MPISCOPE__H(*{message.name});")
        pre.append("c_.r->flags |= MPISCOPE_TRACE_F_MESSAGE;")
    single_request = f.first("REQUEST", "inout") or f.first("REQUEST", "in")
    if single_request is not None and f.cls not in ("completion", "start") and not peek:
        # MPI_Cancel's request is IN but passed by pointer: keep the handle
        deref = "*" if "*" in single_request.decl else ""
        pre.append(f"c_.r->request = MPISCOPE__H({deref}{single_request.name});")

    window = f.first("WINDOW", "in") or f.first("WINDOW", "inout")
    group = f.first("GROUP", "in")
    if window is not None and group is not None and f.base in ("Win_start", "Win_post"):
        post.append(f"if (ret_ == MPI_SUCCESS) mpiscope__trace_window_group(&c_, {group.name}, "
                    f"{window.name});")
    flag = f.first("LOGICAL", "out")
    if flag is not None and f.base in ("Win_test", "Parrived", "Test_cancelled"):
        post.append(f"if (ret_ == MPI_SUCCESS && *{flag.name}) "
                    "c_.r->flags |= MPISCOPE_TRACE_F_TRUE;")
    window_out = f.first("WINDOW", "out")
    if window_out is not None:
        post.append(f"if (ret_ == MPI_SUCCESS) mpiscope__trace_window_created(&c_, "
                    f"MPISCOPE__H(*{window_out.name}));")

    if f.cls == "completion" or peek:
        pre.append(_completion_pre(f))
        post.append(_completion_post(f))
    elif f.cls == "start":
        if f.base == "Start":
            pre.append("c_.r->request = MPISCOPE__H(*request);")
        else:
            post.append("mpiscope__trace_started_all(&c_, count, array_of_requests);")
    if f.cls in ("recv", "probe", "mrecv") and status is not None:
        found = " && *flag" if f.param("flag") else ""  # Iprobe: status set only if found
        post.append(f"if (ret_ == MPI_SUCCESS{found}) "
                    f"mpiscope__trace_status(&c_, {status.name}_);")
    if f.cls == "sendrecv":
        post.append(f"if (ret_ == MPI_SUCCESS) mpiscope__trace_recv_half(&c_, {status.name}_);")
    if f.cls == "isendrecv":
        post.append("mpiscope__trace_post_recv_half(&c_, source, recvtag);")

    request = f.first("REQUEST", "out")
    if request is not None:
        post.append(f"if (ret_ == MPI_SUCCESS) mpiscope__trace_request_created(&c_, "
                    f"MPISCOPE__H(*{request.name}));")
    message_out = f.first("MESSAGE", "out")
    if message_out is not None:
        post.append(f"if (ret_ == MPI_SUCCESS) mpiscope__trace_message(&c_, "
                    f"MPISCOPE__H(*{message_out.name}));")
    newcomm = f.first("COMMUNICATOR", "out")
    if newcomm is not None and f.base not in LOCAL_COMMS:
        how = "MPISCOPE__TRACE_COMM_DUP" if f.base in DUPS else "MPISCOPE__TRACE_COMM_AGREE"
        parent = comm.name if comm is not None else "MPI_COMM_NULL"
        post.append(f"if (ret_ == MPI_SUCCESS) mpiscope__trace_comm_created(&c_, {how}, "
                    f"{parent}, *{newcomm.name});")
    elif newcomm is not None:
        post.append(f"if (ret_ == MPI_SUCCESS) mpiscope__trace_comm_created(&c_, "
                    f"MPISCOPE__TRACE_COMM_LOCAL, MPI_COMM_NULL, *{newcomm.name});")

    lines += pre
    if "pre" in hooks:
        lines.append(hooks["pre"])
    lines.append("mpiscope__trace_stamp_enter(&c_);")
    if "call" in hooks:
        lines.append(hooks["call"])
    call = f"P{f.name}({_call_args(f, subst)})"
    lines.append(f"{call};" if ret_void else f"{f.ret} ret_ = {call};")
    lines.append("mpiscope__trace_stamp_exit(&c_);")
    lines += post
    if "post" in hooks:
        lines.append(hooks["post"])
    failed = "ret_ != MPI_SUCCESS" if f.ret == "int" else "0"
    lines.append(f"mpiscope__trace_end(&c_, {failed});")
    if "final" in hooks:
        lines.append(hooks["final"])
    if not ret_void:
        lines.append("return ret_;")
    f.body = lines
    return lines


def _completion_pre(f: Function) -> str:
    if f.base == "Request_get_status":
        return "uint64_t req_ = MPISCOPE__H(request);"
    if f.base in ("Wait", "Test"):
        return "uint64_t req_ = MPISCOPE__H(*request);"
    n = "incount" if f.param("incount") else "count"
    return (f"uint64_t *reqs_ = mpiscope__trace_save_requests(&c_, {n}, array_of_requests);")


def _completion_post(f: Function) -> str:
    b = GET_STATUS.get(f.base, f.base)
    ok = "(ret_ == MPI_SUCCESS || ret_ == MPI_ERR_IN_STATUS)"
    if b == "Wait":
        return "if (ret_ == MPI_SUCCESS) mpiscope__trace_completed(&c_, req_, status_);"
    if b == "Test":
        return "if (ret_ == MPI_SUCCESS && *flag) mpiscope__trace_completed(&c_, req_, status_);"
    if b == "Waitall":
        return (f"if {ok} mpiscope__trace_completed_all(&c_, count, reqs_, "
                "array_of_statuses_);")
    if b == "Testall":
        return (f"if ({ok} && *flag) mpiscope__trace_completed_all(&c_, count, reqs_, "
                "array_of_statuses_);")
    if b == "Waitany":
        return ("if (ret_ == MPI_SUCCESS) mpiscope__trace_completed_index(&c_, count, reqs_, "
                "*index, status_);")
    if b == "Testany":
        return ("if (ret_ == MPI_SUCCESS && *flag) mpiscope__trace_completed_index(&c_, count, "
                "reqs_, *index, status_);")
    return (f"if {ok} mpiscope__trace_completed_some(&c_, incount, reqs_, *outcount, "
            "array_of_indices, array_of_statuses_);")


# --- rendering ---------------------------------------------------------------

HEADER = """\
/* GENERATED by tools/gen_tracer_wrappers.py from pympistandard {version}
 * ({count} C functions of the MPI standard). Do not edit: change the
 * generator and run it again (a test checks this file is reproducible). */
"""


def signature(f: Function) -> str:
    params = ", ".join(p.decl for p in f.params)
    if f.varargs:
        params += ", ..."
    return f"{f.ret} {f.name}({params or 'void'})"


def guard(f: Function) -> str:
    return f"#if defined(MPISCOPE_TRACE_HAVE_{f.name}) && !defined({f.name})"


def render_wrappers(version: str, functions: list[Function], group: str) -> str:
    out = [HEADER.format(version=version, count=len(functions)).rstrip("\n"),
           f"/* wrappers_{group}.c: the {group} wrappers. */",
           '#include "trace_call.h"', ""]
    for f in functions:
        if f.group != group:
            continue
        out += [guard(f), signature(f), "{"]
        out += [f"    {line}" for line in f.body]
        out += ["}", "#endif", ""]
    return "\n".join(out)


def render_prototypes(version: str, functions: list[Function]) -> str:
    """The standard's prototypes, for the build's probe of this MPI's mpi.h."""
    out = [HEADER.format(version=version, count=len(functions)).rstrip("\n"),
           "/* trace_prototypes.h: the standard's prototype of every function; the",
           " * build compiles it after mpi.h and skips the functions whose",
           " * declaration in mpi.h differs (src/tracer/probe_mpi.cmake). */", ""]
    for f in functions:
        out += [guard(f), f"{signature(f)};", "#endif"]
    out.append("")
    return "\n".join(out)


def render_ids(version: str, functions: list[Function]) -> str:
    out = [HEADER.format(version=version, count=len(functions)).rstrip("\n"),
           "/* trace_functions.h: the function ids of trace records (0 is unused). */",
           "#ifndef MPISCOPE_TRACE_FUNCTIONS_H", "#define MPISCOPE_TRACE_FUNCTIONS_H", "",
           f"#define MPISCOPE_TRACE_FN_COUNT {len(functions) + 1}", ""]
    for i, f in enumerate(functions, start=1):
        out.append(f"#define MPISCOPE_TRACE_FN_{f.name} {i}")
    out += ["", "/* Function classes (docs/trace-format.md). */"]
    for name, code in CLASSES.items():
        out.append(f"#define MPISCOPE_TRACE_CLASS_{name.upper()} {code}")
    out += ["", "extern const char *const mpiscope__trace_fn_names[MPISCOPE_TRACE_FN_COUNT];",
            "extern const unsigned char mpiscope__trace_fn_classes[MPISCOPE_TRACE_FN_COUNT];",
            "", "#endif", ""]
    return "\n".join(out)


def render_tables(version: str, functions: list[Function]) -> str:
    out = [HEADER.format(version=version, count=len(functions)).rstrip("\n"),
           "/* trace_functions.c: names and classes of the function ids. */",
           '#include "trace_functions.h"', "",
           "const char *const mpiscope__trace_fn_names[MPISCOPE_TRACE_FN_COUNT] = {",
           '    "",']
    out += [f'    "{f.name}",' for f in functions]
    out += ["};", "",
            "const unsigned char mpiscope__trace_fn_classes[MPISCOPE_TRACE_FN_COUNT] = {",
            "    0,"]
    out += [f"    MPISCOPE_TRACE_CLASS_{f.cls.upper()}, /* {f.name} */" for f in functions]
    out += ["};", ""]
    return "\n".join(out)


def render_all() -> dict[str, str]:
    """File name -> content of every generated file."""
    version, functions = load_functions()
    for f in functions:
        classify(f)
        build_body(f)
    files = {
        "trace_functions.h": render_ids(version, functions),
        "trace_functions.c": render_tables(version, functions),
        "trace_prototypes.h": render_prototypes(version, functions),
    }
    for group in sorted({f.group for f in functions}):
        files[f"wrappers_{group}.c"] = render_wrappers(version, functions, group)
    return files


def _diff(name: str, old: str, new: str) -> Iterable[str]:
    return difflib.unified_diff(old.splitlines(), new.splitlines(), f"a/{name}", f"b/{name}",
                                lineterm="", n=1)


def write_or_check(prog: str, files: dict[str, str], out: Path, check: bool) -> int:
    """Write `files` (name -> text) into `out`, or with `check` compare them
    with what is there (a file missing, differing or left over in `out` is
    stale): 0, or 1 with the differences on stderr."""
    if check:
        stale = []
        for name, text in files.items():
            path = out / name
            old = path.read_text(encoding="utf-8") if path.exists() else ""
            if old != text:
                stale.append(name)
                print("\n".join(list(_diff(name, old, text))[:40]), file=sys.stderr)
        extra = sorted(p.name for p in out.glob("*.[ch]") if p.name not in files)
        if stale or extra:
            print(f"{prog}: error: out of date: {', '.join(stale + extra)}", file=sys.stderr)
            return 1
        return 0
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    print(f"{prog}: wrote {len(files)} files to {out}")
    return 0


def generator_main(prog: str, doc: str, default_out: Path,
                   render: Callable[[], dict[str, str]], argv: list[str] | None) -> int:
    """The command line of a generator: [--out DIR] [--check]; render()'s
    ValueError is a one-line error (exit 2)."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.splitlines()[0])
    parser.add_argument("--out", type=Path, default=default_out, help="output directory")
    parser.add_argument("--check", action="store_true",
                        help="compare with the files in --out instead of writing them")
    args = parser.parse_args(argv)
    try:
        files = render()
    except ImportError:
        print(f"{prog}: error: pympistandard is not installed (pip install -e '.[dev]')",
              file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    return write_or_check(prog, files, args.out, args.check)


def main(argv: list[str] | None = None) -> int:
    return generator_main("gen_tracer_wrappers", __doc__, DEFAULT_OUT, render_all, argv)


if __name__ == "__main__":
    sys.exit(main())

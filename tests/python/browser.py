"""Headless Chromium driven through the DevTools protocol, standard library only.

Used by test_html.py to open the HTML report in a real browser. Chromium
(Debian's `chromium`, installed by `make test`) starts with
``--remote-debugging-port=0`` and prints the browser's websocket address on
stderr; this module reads the page target from ``/json/list`` and speaks
the protocol over a minimal RFC 6455 websocket client (text frames, masked
as a client must, fragmented and 64-bit-length frames, ping/pong), so no
package is downloaded. ``Chromium.open(url)`` returns what the page did:
console messages, uncaught exceptions, failed and outside requests; then
``evaluate`` and ``screenshot`` look at the loaded page.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

CHROMIUM = os.environ.get("MPISCOPE_CHROMIUM", "/usr/bin/chromium")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-port=0",
)
START_TIMEOUT_S = 60.0
CALL_TIMEOUT_S = 60.0


class BrowserError(Exception):
    """The browser did not start or answer as expected."""


class WebSocket:
    """A blocking websocket client: enough for the DevTools protocol."""

    def __init__(self, url: str, timeout: float) -> None:
        parsed = urlparse(url)
        host, port = parsed.hostname or "127.0.0.1", parsed.port or 80
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode("ascii")
        request = (
            f"GET {parsed.path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode("ascii"))
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise BrowserError("the browser closed the websocket during the handshake")
            head += chunk
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status + b" ":
            raise BrowserError(f"websocket handshake refused: {status!r}")
        self.buffer = head.split(b"\r\n\r\n", 1)[1]

    def send(self, text: str) -> None:
        payload = text.encode("utf-8")
        header = bytearray([0x81])  # FIN + text
        length = len(payload)
        if length < 126:
            header.append(0x80 | length)
        elif length < 1 << 16:
            header.append(0x80 | 126)
            header += struct.pack("!H", length)
        else:
            header.append(0x80 | 127)
            header += struct.pack("!Q", length)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes(header) + mask + masked)

    def recv(self) -> str:
        message = b""
        while True:
            first, second = self._read(2)
            opcode, fin = first & 0x0F, first & 0x80
            length = second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", self._read(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", self._read(8))
            mask = self._read(4) if second & 0x80 else b""
            payload = self._read(length)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x8:
                raise BrowserError("the browser closed the websocket")
            if opcode == 0x9:  # ping: answer with the same payload
                self.sock.sendall(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
                continue
            if opcode in (0x1, 0x0):
                message += payload
                if fin:
                    return message.decode("utf-8")

    def _read(self, count: int) -> bytes:
        while len(self.buffer) < count:
            chunk = self.sock.recv(max(65536, count - len(self.buffer)))
            if not chunk:
                raise BrowserError("the browser closed the connection")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def close(self) -> None:
        self.sock.close()


@dataclass
class PageLoad:
    """What happened while a page loaded."""

    console: list[dict[str, Any]] = field(default_factory=list)
    exceptions: list[dict[str, Any]] = field(default_factory=list)
    log_entries: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    failed_requests: list[dict[str, Any]] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        """Every console error, uncaught exception, error log entry and failed load."""
        out = [
            f"console.{m.get('type')}: {m.get('args')}"
            for m in self.console
            if m.get("type") in ("error", "assert")
        ]
        out += [f"exception: {e.get('exceptionDetails', {}).get('text')}" for e in self.exceptions]
        out += [
            f"log {e['entry'].get('source')}: {e['entry'].get('text')}"
            for e in self.log_entries
            if e.get("entry", {}).get("level") == "error"
        ]
        out += [f"request failed: {f.get('errorText')}" for f in self.failed_requests]
        return out


class Chromium:
    """A headless Chromium with a fresh profile, stopped by ``close``."""

    def __init__(self, width: int = 1400, height: int = 1000) -> None:
        if not Path(CHROMIUM).exists():
            raise BrowserError(
                f"no browser at {CHROMIUM}: install Debian's chromium (make chromium)"
            )
        self.profile = tempfile.mkdtemp(prefix="mpiscope-chromium-")
        self.process = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            port = self._devtools_port()
            self.ws = WebSocket(self._page_url(port), CALL_TIMEOUT_S)
        except BaseException:
            self.close()
            raise
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    def _devtools_port(self) -> int:
        assert self.process.stderr is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        seen = []
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                raise BrowserError(f"chromium exited before DevTools started: {seen[-5:]}")
            seen.append(line.strip())
            match = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if match:
                # Keep reading stderr, so a full pipe never blocks the browser.
                threading.Thread(target=self._drain, args=(seen,), daemon=True).start()
                return int(match.group(1))
        raise BrowserError(f"chromium did not start DevTools in {START_TIMEOUT_S} s")

    def _drain(self, seen: list[str]) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            seen.append(line.strip())

    @staticmethod
    def _page_url(port: int) -> str:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                targets = json.loads(r.read())
            pages = [t for t in targets if t.get("type") == "page"]
            if pages:
                return str(pages[0]["webSocketDebuggerUrl"])
            time.sleep(0.1)
        raise BrowserError("chromium has no page target")

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one command and return its result; events met are kept."""
        self.next_id += 1
        ident = self.next_id
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params or {}}))
        deadline = time.monotonic() + CALL_TIMEOUT_S
        while time.monotonic() < deadline:
            message = json.loads(self.ws.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            if "method" in message:
                self.events.append(message)
        raise BrowserError(f"{method}: no answer in {CALL_TIMEOUT_S} s")

    def wait_for(self, event: str) -> dict[str, Any]:
        for message in self.events:
            if message["method"] == event:
                return message
        deadline = time.monotonic() + CALL_TIMEOUT_S
        while time.monotonic() < deadline:
            message = json.loads(self.ws.recv())
            if "method" in message:
                self.events.append(message)
                if message["method"] == event:
                    return message
        raise BrowserError(f"no {event} in {CALL_TIMEOUT_S} s")

    def open(self, url: str) -> PageLoad:
        """Load ``url``; return the console messages, exceptions and requests."""
        for domain in ("Runtime", "Log", "Page", "Network"):
            self.call(f"{domain}.enable")
        self.events.clear()
        self.call("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")
        # Let late console messages and image decoding arrive.
        self.evaluate("new Promise(r => requestAnimationFrame(() => setTimeout(r, 200)))")
        load = PageLoad()
        for message in self.events:
            params = message.get("params", {})
            name = message["method"]
            if name == "Runtime.consoleAPICalled":
                load.console.append(
                    {"type": params.get("type"), "args": [a.get("value") for a in params["args"]]}
                )
            elif name == "Runtime.exceptionThrown":
                load.exceptions.append(params)
            elif name == "Log.entryAdded":
                load.log_entries.append(params)
            elif name == "Network.requestWillBeSent":
                load.requests.append(params["request"]["url"])
            elif name == "Network.loadingFailed":
                load.failed_requests.append(params)
        return load

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"evaluate failed: {result['exceptionDetails'].get('text')}")
        return result.get("result", {}).get("value")

    def screenshot(self, clip: dict[str, float] | None = None) -> bytes:
        """A PNG of the page (of ``clip``: x, y, width, height in CSS pixels)."""
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": True}
        if clip is not None:
            params["clip"] = {**clip, "scale": 1}
        return base64.b64decode(self.call("Page.captureScreenshot", params)["data"])

    def close(self) -> None:
        ws = getattr(self, "ws", None)
        if ws is not None:
            ws.close()
        # The browser leads its own process group (start_new_session): stop
        # it and its helper processes, and only them.
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.process.wait(timeout=10)
                break
            except subprocess.TimeoutExpired:
                continue
        shutil.rmtree(self.profile, ignore_errors=True)

"""A headless Chromium driven over the DevTools protocol with the standard library only.

``--remote-debugging-pipe`` makes Chromium read commands from fd 3 and write replies and
events to fd 4, each a JSON object ended by a NUL byte: no websocket, no dependency. The
page is opened in a new target attached with ``flatten`` (commands carry its session id).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import struct
import subprocess
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")


def find_chromium() -> str | None:
    for c in CANDIDATES:
        if os.access(c, os.X_OK):
            return c
    return shutil.which("chromium")


def _onto_3_and_4(read_fd: int, write_fd: int) -> None:
    """In the child: the command pipe on fd 3, the reply pipe on fd 4 (moved above 10
    first, so neither clobbers the other)."""
    import fcntl

    r = fcntl.fcntl(read_fd, fcntl.F_DUPFD, 10)
    w = fcntl.fcntl(write_fd, fcntl.F_DUPFD, 10)
    os.dup2(r, 3)
    os.dup2(w, 4)


class Browser:
    """One Chromium process; :meth:`open` a file, then :meth:`call` into the page."""

    def __init__(self, exe: str, width: int = 1000, height: int = 800, timeout: float = 60) -> None:
        self.timeout = timeout
        # short paths: Chromium's singleton socket lives under $TMPDIR, and a socket path
        # holds ~108 bytes (a TMPDIR 200 characters deep made it exit at start)
        short = "/tmp" if os.path.isdir("/tmp") else None
        env = {**os.environ, "TMPDIR": short} if short else None
        self._profile = tempfile.TemporaryDirectory(prefix="sidtui-chromium-", dir=short)
        to_child_r, self._w = os.pipe()
        self._r, from_child_w = os.pipe()
        # the child's fd 3 reads commands, fd 4 writes replies
        self.proc = subprocess.Popen(
            [
                exe,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--hide-scrollbars",
                f"--window-size={width},{height}",
                f"--user-data-dir={self._profile.name}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            pass_fds=(3, 4),
            preexec_fn=lambda: _onto_3_and_4(to_child_r, from_child_w),
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._id = 0
        self.session: str | None = None
        self.events: list[dict[str, Any]] = []

    def _send(self, method: str, params: dict[str, Any] | None, session: str | None) -> int:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session is not None:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        return self._id

    def _read(self) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buf:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self._r, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, params: dict[str, Any] | None = None, *, browser: bool = False):
        """Send a command (to the page unless ``browser``) and return its result."""
        mid = self._send(method, params, None if browser else self.session)
        while True:
            msg = self._read()
            if msg.get("id") == mid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, method: str) -> dict[str, Any]:
        for i, ev in enumerate(self.events):
            if ev.get("method") == method:
                return self.events.pop(i)
        while True:
            msg = self._read()
            if msg.get("method") == method:
                return msg
            self.events.append(msg)

    def open(self, path: Path) -> None:
        target = self.call("Target.createTarget", {"url": "about:blank"}, browser=True)
        att = self.call(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, browser=True
        )
        self.session = att["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call("Page.navigate", {"url": path.resolve().as_uri()})
        self.wait_event("Page.loadEventFired")

    def js(self, expression: str) -> Any:
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return r["result"].get("value")

    def click(self, x: float, y: float) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
            )

    def screenshot(self, width: int = 480, height: int = 360) -> bytes:
        """A PNG of the top left of the page (small: it is decoded in Python)."""
        clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
        shot = self.call("Page.captureScreenshot", {"format": "png", "clip": clip})
        return base64.b64decode(shot["data"])

    def close(self) -> None:
        try:
            self.call("Browser.close", browser=True)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._w)
        os.close(self._r)
        self._profile.cleanup()


def png_colours(png: bytes) -> int:
    """How many distinct colours a PNG (8-bit RGB or RGBA, not interlaced) holds: 1 for a
    blank page. Rows are unfiltered as the PNG specification says (a small image: the
    loop is Python)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, bpp = 8, b"", 0, 0, 4
    while pos < len(png):
        (n,) = struct.unpack(">I", png[pos : pos + 4])
        kind, data = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + n]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", data[:8])
            assert data[8] == 8 and data[12] == 0, "8-bit, not interlaced"
            bpp = {2: 3, 6: 4}[data[9]]
        elif kind == b"IDAT":
            idat += data
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    seen: set[bytes] = set()
    for row in range(height):
        start = row * (stride + 1)
        f, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        seen.update(bytes(line[i : i + bpp]) for i in range(0, stride, bpp))
        prev = line
    return len(seen)

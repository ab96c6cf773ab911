"""A real headless Chromium driven over the DevTools protocol through a pipe (no extra package).

``chromium --remote-debugging-pipe`` reads protocol commands from file descriptor 3 and writes
replies and events to descriptor 4, each message JSON ended by a NUL byte: no port, no
WebSocket library. :func:`open_page` loads a file and returns what a test checks: console
errors and uncaught exceptions, the browser's own error log (a blocked load, a CSP violation),
every request the page made, counts of elements, the time until the page was loaded and
painted, and (optionally) a screenshot.

Chromium is Debian's ``chromium`` package (``.ci/run`` installs it when missing, as root);
:func:`chromium_binary` finds it on PATH.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Flags for a quiet, offline-friendly headless browser in a container (root: no sandbox).
FLAGS = [
    "--headless",
    "--disable-gpu",
    "--no-sandbox",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-pipe",
]


def chromium_binary() -> str | None:
    """The Chromium to run: ``chromium`` (Debian's package) on PATH, else ``chromium-browser`` or
    ``google-chrome``; ``None`` when there is none."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class PageLoad:
    """What loading one page showed."""

    url: str
    #: ``console.error`` / ``console.assert`` calls and uncaught exceptions, as text.
    console_errors: list[str] = field(default_factory=list)
    #: The browser's log entries of level error (failed loads, CSP violations, ...).
    log_errors: list[str] = field(default_factory=list)
    #: Every URL the page requested (the document itself included).
    requests: list[str] = field(default_factory=list)
    #: The result of each expression of ``evaluate`` (by the expression).
    values: dict[str, Any] = field(default_factory=dict)
    #: Seconds from the navigation to the load event, and to the first frame painted after it.
    load_seconds: float = 0.0
    painted_seconds: float = 0.0
    screenshot: Path | None = None

    @property
    def errors(self) -> list[str]:
        return self.console_errors + self.log_errors


class DevTools:
    """One Chromium process and its protocol pipe."""

    def __init__(self, binary: str, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="toolsearch-chromium-")
        cmd_read, self._cmd_write = os.pipe()
        self._out_read, out_write = os.pipe()

        def on_fds_3_and_4() -> None:  # in the child, before exec: the protocol's descriptors
            # (first out of the way: a pipe's own descriptor may be 3 or 4)
            high_read = fcntl.fcntl(cmd_read, fcntl.F_DUPFD, 10)
            high_write = fcntl.fcntl(out_write, fcntl.F_DUPFD, 10)
            os.dup2(high_read, 3)
            os.dup2(high_write, 4)

        self.process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self.profile}", "--window-size=1280,900", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, "HOME": self.profile},  # its caches and crash folder: never the user's
            close_fds=False,
            preexec_fn=on_fds_3_and_4,  # noqa: PLW1509 (a test helper, started from one thread)
        )
        os.close(cmd_read)
        os.close(out_write)
        self._next = 0
        self._replies: dict[int, queue.Queue[dict[str, Any]]] = {}
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._lock = threading.Lock()
        self._stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            if len(self._stderr) < 200:
                self._stderr.append(line)

    def _read(self) -> None:
        buffer = b""
        with os.fdopen(self._out_read, "rb", buffering=0) as pipe:
            while True:
                chunk = pipe.read(1 << 16)
                if not chunk:
                    return
                buffer += chunk
                while b"\0" in buffer:
                    raw, buffer = buffer.split(b"\0", 1)
                    message = json.loads(raw)
                    if "id" in message:
                        with self._lock:
                            waiting = self._replies.get(message["id"])
                        if waiting is not None:
                            waiting.put(message)
                    else:
                        self.events.put(message)

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        """Send a command and wait for its reply; a protocol error raises RuntimeError."""
        with self._lock:
            self._next += 1
            number = self._next
            reply: queue.Queue[dict[str, Any]] = queue.Queue()
            self._replies[number] = reply
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._cmd_write, json.dumps(message).encode() + b"\0")
        try:
            answer = reply.get(timeout=self.timeout)
        except queue.Empty:
            stderr = b"".join(self._stderr[-20:]).decode(errors="replace")
            raise RuntimeError(f"chromium did not answer {method} in {self.timeout}s; stderr:\n{stderr}") from None
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._cmd_write)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> DevTools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def load(
        self,
        path: Path,
        *,
        evaluate: tuple[str, ...] = (),
        screenshot: Path | None = None,
        max_height: int = 4000,
    ) -> PageLoad:
        """Open ``path`` in a new tab; what its load showed (see :class:`PageLoad`)."""
        url = path.resolve().as_uri()
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=session)
        while not self.events.empty():  # what about:blank said
            self.events.get_nowait()
        result = PageLoad(url)
        started = time.perf_counter()
        self.send("Page.navigate", {"url": url}, session=session)
        deadline = started + self.timeout
        loaded = False
        while not loaded:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise RuntimeError(f"{url} did not load in {self.timeout}s")
            try:
                event = self.events.get(timeout=remaining)
            except queue.Empty:
                continue
            if event.get("sessionId") != session:
                continue
            loaded = self._note(event, result)
        result.load_seconds = time.perf_counter() - started
        # two animation frames after the load: the page has been laid out and painted
        self.send(
            "Runtime.evaluate",
            {
                "expression": "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))",
                "awaitPromise": True,
            },
            session=session,
        )
        result.painted_seconds = time.perf_counter() - started
        for expression in evaluate:
            reply = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)
            result.values[expression] = reply.get("result", {}).get("value")
        if screenshot is not None:
            metrics = self.send("Page.getLayoutMetrics", session=session)
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], max_height), "scale": 1}
            shot = self.send(
                "Page.captureScreenshot",
                {"format": "png", "clip": clip, "captureBeyondViewport": True},
                session=session,
            )
            screenshot.write_bytes(base64.b64decode(shot["data"]))
            result.screenshot = screenshot
        time.sleep(0.05)  # late console messages and log entries
        while not self.events.empty():
            event = self.events.get_nowait()
            if event.get("sessionId") == session:
                self._note(event, result)
        self.send("Target.closeTarget", {"targetId": target})
        return result

    @staticmethod
    def _note(event: dict[str, Any], result: PageLoad) -> bool:
        """Record one event; true for the page's load event."""
        method, params = event.get("method"), event.get("params", {})
        if method == "Page.loadEventFired":
            return True
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            result.console_errors.append(f"console.{params['type']}: {args}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            result.console_errors.append(f"exception: {details.get('text')} {details.get('exception', {})}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            result.log_errors.append(f"{entry.get('source')}: {entry.get('text')} {entry.get('url', '')}")
        elif method == "Network.requestWillBeSent":
            result.requests.append(params.get("request", {}).get("url", ""))
        return False

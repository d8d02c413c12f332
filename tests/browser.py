"""A page in Debian's headless chromium, driven over the DevTools protocol (python3-websocket):
what the browser tests of index.html need, and the README's screenshot.

    /usr/bin/python3 tests/browser.py screenshot PAGE.html OUT.png [WIDTH]
"""

import base64
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium():
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def missing():
    """Why the browser cannot run here, or None."""
    if not find_chromium():
        return "chromium is not installed (apt-get install chromium)"
    try:
        import websocket  # noqa: F401
    except ImportError:
        return "python3-websocket is not installed (apt-get install python3-websocket)"
    return None


class Page:
    """One tab of a fresh headless chromium, width x height CSS pixels. Console errors and
    uncaught exceptions are collected in .errors from the moment the tab opens."""

    def __init__(self, width=1200, height=900, timeout=60):
        import websocket
        self.timeout = timeout
        self.errors = []
        self._ids = itertools.count(1)
        self._events = []
        self._dir = tempfile.mkdtemp(prefix="aj-chromium-")
        self._proc = subprocess.Popen(
            [find_chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", "--remote-debugging-port=0", "--remote-allow-origins=*",
             f"--user-data-dir={self._dir}", f"--window-size={width},{height}", "about:blank"],
            # its singleton socket directory goes where close() removes it, not into /tmp
            env=dict(os.environ, TMPDIR=self._dir),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self._dir, "DevToolsActivePort")
        deadline = time.monotonic() + timeout
        while True:
            try:
                with open(port_file) as fh:
                    port, path = fh.read().split()[:2]
                break
            except (OSError, ValueError):
                if self._proc.poll() is not None or time.monotonic() > deadline:
                    self.close()
                    raise RuntimeError("chromium did not open its DevTools port")
                time.sleep(0.1)
        self._ws = websocket.create_connection(f"ws://127.0.0.1:{port}{path}", timeout=timeout,
                                               suppress_origin=True)
        target = self._call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self._call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def _call(self, method, session=None, **params):
        msg_id = next(self._ids)
        msg = {"id": msg_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        self._ws.send(json.dumps(msg))
        while True:
            reply = json.loads(self._ws.recv())
            if reply.get("id") == msg_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            self._event(reply)

    def _event(self, msg):
        method, p = msg.get("method"), msg.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            self.errors.append((d.get("exception") or {}).get("description") or d.get("text"))
        elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            self.errors.append(" ".join(str(a.get("value", a.get("description"))) for a in p.get("args", [])))
        elif method == "Log.entryAdded" and p["entry"].get("level") == "error":
            self.errors.append(p["entry"].get("text"))
        elif method:
            self._events.append(method)

    def call(self, method, **params):
        return self._call(method, self._session, **params)

    def open(self, path):
        self._events.clear()
        self.call("Page.navigate", url="file://" + os.path.abspath(path))
        deadline = time.monotonic() + self.timeout
        while "Page.loadEventFired" not in self._events:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{path} did not load")
            self._event(json.loads(self._ws.recv()))

    def eval(self, expression):
        """The value of a JavaScript expression in the page (JSON-serialisable)."""
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails'].get('text')}")
        return r["result"].get("value")

    def screenshot(self, out, full_page=False):
        params = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", **params)["data"]
        with open(out, "wb") as fh:
            fh.write(base64.b64decode(data))

    def close(self):
        try:
            if getattr(self, "_ws", None):
                self._ws.close()
        finally:
            if self._proc.poll() is None:
                self._proc.terminate()
                try:
                    self._proc.wait(10)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
            shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] != "screenshot":
        sys.exit(__doc__.strip())
    why = missing()
    if why:
        sys.exit(f"CRITICAL: {why}")
    with Page(width=int(sys.argv[4]) if len(sys.argv) > 4 else 1200) as page:
        page.open(sys.argv[2])
        page.screenshot(sys.argv[3])
        if page.errors:
            sys.exit("CRITICAL: console errors: " + "; ".join(page.errors))

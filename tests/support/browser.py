"""A headless Chromium driven through its DevTools protocol, for tests of the pages Tiempo writes.

    async with open_page(need_browser(), url) as page:
        await page.key("ArrowRight")                 # a real key press
        await page.click("#next")                    # a real mouse click on an element
        step = await page.evaluate("document.body.dataset.step")
        png = await page.screenshot()

Chromium comes from the OS packages (Debian: ``apt-get install chromium``). ``browser()`` finds it;
``need_browser()`` skips a test without one, saying what to install, or fails it under ``.ci/run``
(``TIEMPO_REQUIRE_BROWSER=1``), which installs it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

INSTALL = ("This test opens a page in a headless Chromium, and none is installed: install it from the OS packages "
           "(Debian/Ubuntu: sudo apt-get install chromium) and run the test again.")


def browser() -> str | None:
    """The path of a Chromium (or Chrome) program, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found is not None:
            return found
    return None


def need_browser() -> str:
    """The browser's path; skips the test without one (fails it with TIEMPO_REQUIRE_BROWSER=1)."""
    found = browser()
    if found is None:
        if os.environ.get("TIEMPO_REQUIRE_BROWSER", "").strip() == "1":
            pytest.fail(INSTALL, pytrace=False)
        pytest.skip(INSTALL)
    return found


class Page:
    """One tab, over its DevTools web socket."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self._id = 0

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        self._id += 1
        ask = self._id
        await self.ws.send_str(json.dumps({"id": ask, "method": method, "params": params}))
        while True:
            msg = json.loads(await asyncio.wait_for(self.ws.receive_str(), 30))
            if msg.get("id") == ask:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                result: dict[str, Any] = msg.get("result", {})
                return result

    async def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page. Raises RuntimeError if it throws."""
        out = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in out:
            raise RuntimeError(f"{expression}: {out['exceptionDetails']}")
        return out["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = 20.0) -> Any:
        """The value of ``expression`` once it is truthy (the page has loaded and run)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            try:
                value = await self.evaluate(expression)
            except RuntimeError:  # the page is still loading
                value = None
            if value or loop.time() > end:
                return value
            await asyncio.sleep(0.1)

    async def key(self, key: str) -> None:
        """Press and release ``key`` (``ArrowRight``, ``End``...)."""
        codes = {"ArrowLeft": 37, "ArrowRight": 39, "Home": 36, "End": 35}
        for kind in ("rawKeyDown", "keyUp"):
            await self.send("Input.dispatchKeyEvent", type=kind, key=key, code=key,
                            windowsVirtualKeyCode=codes.get(key, 0))

    async def click(self, selector: str) -> None:
        """A mouse click in the middle of the element ``selector``."""
        box = await self.evaluate(f"(function(){{var r=document.querySelector({json.dumps(selector)})"
                                  ".getBoundingClientRect();return [r.x+r.width/2,r.y+r.height/2];})()")
        for kind in ("mousePressed", "mouseReleased"):
            await self.send("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    async def screenshot(self) -> bytes:
        out = await self.send("Page.captureScreenshot", format="png")
        return base64.b64decode(out["data"])


@contextlib.asynccontextmanager
async def open_page(program: str, url: str, width: int = 1200, height: int = 900) -> AsyncIterator[Page]:
    """Chromium, headless, showing ``url``; stopped and its profile removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="tiempo-chromium-") as profile:
        proc = await asyncio.create_subprocess_exec(
            program, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
            f"--user-data-dir={profile}", "--remote-debugging-port=0", f"--window-size={width},{height}",
            "about:blank", stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        drain: asyncio.Task[None] | None = None
        try:
            assert proc.stderr is not None
            port = None
            while port is None:
                raw = await asyncio.wait_for(proc.stderr.readline(), 60)
                if not raw:
                    raise RuntimeError("Chromium stopped before it listened for DevTools")
                found = re.search(rb"DevTools listening on ws://[^:]+:(\d+)/", raw)
                port = int(found.group(1)) if found else None
            drain = asyncio.create_task(_drain(proc.stderr))  # its later complaints must not fill the pipe
            async with aiohttp.ClientSession() as http:
                async with http.get(f"http://127.0.0.1:{port}/json/list") as r:
                    targets = await r.json()
                target = next(t for t in targets if t.get("type") == "page")
                async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                    page = Page(ws)
                    await page.send("Page.enable")
                    await page.send("Page.navigate", url=url)
                    yield page
        finally:
            if drain is not None:
                drain.cancel()
            if proc.returncode is None:
                proc.terminate()
                try:
                    await asyncio.wait_for(proc.wait(), 10)
                except TimeoutError:
                    proc.kill()
                    await proc.wait()


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.read(65536):
        pass

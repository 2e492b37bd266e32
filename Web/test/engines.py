"""The three browser engines of Web/test/browser_test.py behind one small interface.

    Chromium      Debian's chromium, driven by Playwright for Python (executable_path, no download)
    Firefox ESR   firefox-esr's own WebDriver BiDi server (--remote-debugging-port), driven by the small
                  BiDi client below over PyPI `websockets` (there is no geckodriver here)
    WebKitGTK     WebKitWebDriver (Debian's webkit2gtk-driver) and its MiniBrowser, through PyPI
                  `selenium`'s webdriver.WebKitGTK; needs an X display (Web/test/run uses xvfb-run)

An engine opens pages (`engine.page(width, height)`): each is the page under test loaded from file:// in a
fresh browsing context where the engine has one (Chromium: a context; Firefox: a user context), and has
the same methods in every engine: evaluate, wait, set_files, click, fill, press, type, screenshot,
set_viewport, downloads, problems, close. Every script runs as a function of one JSON argument whose
result is JSON, so the three wire protocols look alike to the tests. Input is real input where the
protocol has it: pointer and key actions (BiDi input.performActions, WebDriver element click and actions,
Playwright's mouse and keyboard), files through each protocol's own file setting.
"""

import base64
import json
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import threading
import time

ALLOWED_SCHEMES = ("file:", "blob:", "data:", "about:")

# Recorders put into the page after it loads, in every engine: errors, unhandled rejections, console
# errors, Content-Security-Policy violations. Chromium and Firefox also report errors from their protocol.
PAGE_RECORDERS = """() => {
  if (window.__problems) return;
  window.__problems = [];
  const note = (text) => window.__problems.push(String(text));
  window.addEventListener('error', (e) => note('error: ' + e.message));
  window.addEventListener('unhandledrejection', (e) => note('unhandled rejection: ' + (e.reason && e.reason.stack || e.reason)));
  document.addEventListener('securitypolicyviolation', (e) => note('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));
  const original = console.error;
  console.error = function () { note('console.error: ' + Array.from(arguments).join(' ')); return original.apply(console, arguments); };
}"""

# What the page itself loaded, as the Resource Timing API saw it (WebKit's WebDriver reports no requests).
RESOURCES = "() => performance.getEntriesByType('resource').map((e) => e.name).concat([location.href])"


class EngineUnavailable(Exception):
    pass


def paths_of(path):
    """A path, or a list of paths, as a list."""
    return list(path) if isinstance(path, (list, tuple)) else [path]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_files(folder, names, timeout, partial=(".part", ".crdownload", ".download", ".wkdownload")):
    """{name: bytes} for every name in `names` once each is complete in `folder`."""
    deadline = time.time() + timeout
    sizes = {}
    while True:
        found = {}
        present = os.listdir(folder)
        busy = any(entry.endswith(partial) for entry in present)
        for name in names:
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                size = os.path.getsize(path)
                if size > 0 and sizes.get(name) == size and not busy:
                    found[name] = pathlib.Path(path).read_bytes()
                sizes[name] = size
        if len(found) == len(names):
            return found
        if time.time() > deadline:
            raise AssertionError("downloads %r did not arrive in %s (it holds %r)" % (names, folder, sorted(present)))
        time.sleep(0.15)


class Page:
    """What every engine's page can do; subclasses implement the protocol."""

    engine = None

    def wait(self, function, arg=None, timeout=30.0, message=None):
        """The first truthy value of `function(arg)`, polled; fails after `timeout` seconds."""
        deadline = time.time() + timeout
        while True:
            value = self.evaluate(function, arg)
            if value:
                return value
            if time.time() > deadline:
                raise AssertionError(message or "timed out after %.0f s waiting for %s" % (timeout, function.strip()[:200]))
            time.sleep(0.05)

    def text(self, selector):
        return self.evaluate("(s) => { const e = document.querySelector(s); return e ? e.innerText : null; }", selector)

    def focused(self):
        """The id of the focused element, or its tag and class when it has none."""
        return self.evaluate(
            "() => { const e = document.activeElement; return e ? (e.id || e.tagName.toLowerCase() + (e.className ? '.' + e.className : '')) : null; }"
        )

    def install_recorders(self):
        self.evaluate(PAGE_RECORDERS)

    def problems(self):
        """Requests other than file:, blob:, data: and errors the page logged, as a list of strings."""
        found = []
        for url in self.requests():
            if not url.startswith(ALLOWED_SCHEMES):
                found.append("request: " + url)
        found += self.evaluate("() => window.__problems || []")
        found += self.protocol_errors()
        return found

    def protocol_errors(self):
        return []

    def clear_downloads(self):
        for entry in os.listdir(self.engine.downloads):
            path = os.path.join(self.engine.downloads, entry)
            if os.path.isfile(path):
                os.remove(path)

    def download(self, action, names, timeout=60):
        """Runs `action()` (a click) and returns {name: bytes} of the downloads it makes."""
        self.clear_downloads()
        action()
        self.collect_downloads()
        return wait_files(self.engine.downloads, names, timeout)

    def collect_downloads(self):
        pass


# ---------------------------------------------------------------------------------------------------------
# Chromium through Playwright


class ChromiumEngine:
    name = "chromium"
    label = "Chromium"

    def __init__(self, executable, scratch):
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as error:
            raise EngineUnavailable("playwright for Python is missing (pip install playwright)") from error
        if not os.access(executable, os.X_OK):
            raise EngineUnavailable("no chromium at %s (apt-get install chromium)" % executable)
        self.downloads = tempfile.mkdtemp(prefix="chromium-downloads-", dir=scratch)
        self.playwright = sync_playwright().start()
        self.launch = dict(executable_path=executable, headless=True)
        self.browser = self.playwright.chromium.launch(**self.launch)
        self.version = self.browser.version
        from importlib.metadata import version

        self.driver = "Playwright %s" % version("playwright")

    def page(self, width=1100, height=900, uri=None, color_scheme="light"):
        return ChromiumPage(self, width, height, uri, color_scheme)

    def restart(self):
        """A new browser process (the memory test wants one that holds nothing yet)."""
        self.browser.close()
        self.browser = self.playwright.chromium.launch(**self.launch)

    def close(self):
        try:
            self.browser.close()
        finally:
            self.playwright.stop()


class ChromiumPage(Page):
    def __init__(self, engine, width, height, uri, color_scheme="light"):
        self.engine = engine
        self.context = engine.browser.new_context(accept_downloads=True, viewport={"width": width, "height": height}, color_scheme=color_scheme)
        self.page = self.context.new_page()
        self._requests = []
        self._errors = []
        self._downloads = []
        self.context.on("request", lambda request: self._requests.append(request.url))
        self.page.on("pageerror", lambda error: self._errors.append("pageerror: %s" % error))
        self.page.on("console", lambda message: message.type == "error" and self._errors.append("console: " + message.text))
        self.page.on("download", lambda download: self._downloads.append(download))
        self.page.goto(uri)
        self.install_recorders()

    def evaluate(self, function, arg=None):
        return self.page.evaluate(function, arg)

    def wait(self, function, arg=None, timeout=30.0, message=None):
        try:
            return self.page.wait_for_function(function, arg=arg, timeout=timeout * 1000, polling=50).json_value()
        except Exception as error:
            if "Timeout" in type(error).__name__ or "Timeout" in str(error):
                raise AssertionError(message or "timed out after %.0f s waiting for %s" % (timeout, function.strip()[:200])) from None
            raise

    def set_files(self, selector, path):
        """Sets a file input's files: one path, or a list of them (an input with `multiple`)."""
        self.page.set_input_files(selector, [str(p) for p in paths_of(path)])

    def click(self, selector):
        self.page.click(selector)

    def fill(self, selector, text):
        self.page.fill(selector, text)

    def press(self, key):
        self.page.keyboard.press({"Space": " "}.get(key, key))

    def type(self, text):
        self.page.keyboard.type(text)

    def screenshot(self, path, full_page=False):
        self.page.screenshot(path=str(path), full_page=full_page)

    def set_viewport(self, width, height):
        self.page.set_viewport_size({"width": width, "height": height})

    def requests(self):
        return list(self._requests)

    def protocol_errors(self):
        return list(self._errors)

    def collect_downloads(self):
        deadline = time.time() + 30
        while not self._downloads and time.time() < deadline:
            self.page.wait_for_timeout(50)
        while self._downloads:
            download = self._downloads.pop(0)
            download.save_as(os.path.join(self.engine.downloads, download.suggested_filename))

    def download(self, action, names, timeout=60):
        self.clear_downloads()
        self._downloads.clear()
        action()
        deadline = time.time() + timeout
        saved = {}
        while len(saved) < len(names) and time.time() < deadline:
            self.page.wait_for_timeout(50)
            while self._downloads:
                download = self._downloads.pop(0)
                target = os.path.join(self.engine.downloads, download.suggested_filename)
                download.save_as(target)
                saved[download.suggested_filename] = pathlib.Path(target).read_bytes()
        missing = [n for n in names if n not in saved]
        assert not missing, "downloads %r did not arrive (got %r)" % (missing, sorted(saved))
        return {n: saved[n] for n in names}

    def close(self):
        self.context.close()


# ---------------------------------------------------------------------------------------------------------
# Firefox ESR through its WebDriver BiDi server


class BidiError(Exception):
    pass


class Bidi:
    """A minimal synchronous WebDriver BiDi client: commands wait for their answer; events that arrive
    meanwhile go to the listeners."""

    def __init__(self, url):
        from websockets.sync.client import connect

        self.ws = connect(url, max_size=None, open_timeout=60, close_timeout=5)
        self.next_id = 0
        self.listeners = []

    def send(self, method, params=None, timeout=180):
        self.next_id += 1
        command = self.next_id
        self.ws.send(json.dumps({"id": command, "method": method, "params": params or {}}))
        deadline = time.time() + timeout
        while True:
            remaining = deadline - time.time()
            if remaining <= 0:
                raise BidiError("%s: no answer in %d s" % (method, timeout))
            message = json.loads(self.ws.recv(timeout=remaining))
            if message.get("id") == command:
                if message.get("type") == "error":
                    raise BidiError("%s: %s: %s" % (method, message.get("error"), message.get("message")))
                return message.get("result")
            if message.get("type") == "event":
                for listener in self.listeners:
                    listener(message["method"], message["params"])

    def close(self):
        try:
            self.ws.close()
        except Exception:
            pass


BIDI_KEYS = {
    "Tab": "\ue004", "Enter": "\ue007", "Space": " ", "Escape": "\ue00c", "ArrowLeft": "\ue012", "ArrowRight": "\ue014",
    "ArrowUp": "\ue013", "ArrowDown": "\ue015", "Shift": "\ue008", "Home": "\ue011", "End": "\ue010",
}

FIREFOX_PREFS = {
    # Downloads go to one folder without a question.
    "browser.download.folderList": 2,
    "browser.download.useDownloadDir": True,
    "browser.download.always_ask_before_handling_new_types": False,
    "browser.download.manager.showWhenStarting": False,
    "browser.download.alwaysOpenPanel": False,
    "browser.download.start_downloads_in_tmp_dir": False,
    # Quiet: nothing of the browser's own reaches for the network during the tests.
    "app.update.disabledForTesting": True,
    "browser.shell.checkDefaultBrowser": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "extensions.getAddons.cache.enabled": False,
}


class FirefoxEngine:
    name = "firefox"
    label = "Firefox ESR"

    def __init__(self, executable, scratch):
        if shutil.which(executable) is None:
            raise EngineUnavailable("no %s (apt-get install firefox-esr)" % executable)
        try:
            import websockets  # noqa: F401
        except ImportError as error:
            raise EngineUnavailable("websockets for Python is missing (pip install websockets)") from error
        self.downloads = tempfile.mkdtemp(prefix="firefox-downloads-", dir=scratch)
        self.profile = tempfile.mkdtemp(prefix="firefox-profile-", dir=scratch)
        prefs = dict(FIREFOX_PREFS, **{"browser.download.dir": self.downloads})
        with open(os.path.join(self.profile, "user.js"), "w") as out:
            for key, value in prefs.items():
                out.write("user_pref(%s, %s);\n" % (json.dumps(key), json.dumps(value)))
        self.process = subprocess.Popen(
            [executable, "--headless", "--remote-debugging-port", "0", "-profile", self.profile, "--no-remote"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, MOZ_CRASHREPORTER_DISABLE="1"),
        )
        url = None
        started = time.time()
        for line in self.process.stderr:
            if "WebDriver BiDi listening on" in line:
                url = line.split("listening on", 1)[1].strip()
                break
            if time.time() - started > 90:
                break
        if url is None:
            self.process.kill()
            raise EngineUnavailable("firefox-esr did not start its WebDriver BiDi server")
        # Keep reading its standard error so that it never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in self.process.stderr], daemon=True).start()
        self.bidi = Bidi(url + "/session")
        session = self.bidi.send("session.new", {"capabilities": {}})
        self.version = session["capabilities"]["browserVersion"]
        self.driver = "WebDriver BiDi over websockets %s" % __import__("websockets").__version__
        self.pages = {}
        self.bidi.listeners.append(self.on_event)
        self.bidi.send("session.subscribe", {"events": ["network.beforeRequestSent", "log.entryAdded"]})

    def on_event(self, method, params):
        if method == "network.beforeRequestSent":
            page = self.pages.get(params.get("context"))
            if page:
                page._requests.append(params["request"]["url"])
        elif method == "log.entryAdded":
            page = self.pages.get((params.get("source") or {}).get("context"))
            if page and params.get("level") == "error":
                page._errors.append("%s: %s" % (params.get("type"), params.get("text")))

    def page(self, width=1100, height=900, uri=None):
        return FirefoxPage(self, width, height, uri)

    def close(self):
        try:
            self.bidi.send("session.end", {}, timeout=20)
        except Exception:
            pass
        self.bidi.close()
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class FirefoxPage(Page):
    def __init__(self, engine, width, height, uri):
        self.engine = engine
        self.bidi = engine.bidi
        self._requests = []
        self._errors = []
        self.user_context = self.bidi.send("browser.createUserContext", {})["userContext"]
        self.context = self.bidi.send("browsingContext.create", {"type": "tab", "userContext": self.user_context})["context"]
        engine.pages[self.context] = self
        self.set_viewport(width, height)
        self.bidi.send("browsingContext.navigate", {"context": self.context, "url": uri, "wait": "complete"})
        self.install_recorders()

    def evaluate(self, function, arg=None):
        wrapper = "async (json) => { const f = (%s); const v = await f(JSON.parse(json)); return JSON.stringify(v === undefined ? null : v); }" % function
        result = self.bidi.send(
            "script.callFunction",
            {
                "functionDeclaration": wrapper,
                "arguments": [{"type": "string", "value": json.dumps(arg)}],
                "target": {"context": self.context},
                "awaitPromise": True,
                "resultOwnership": "none",
            },
        )
        if result.get("type") == "exception":
            details = result.get("exceptionDetails", {})
            raise AssertionError("script failed in Firefox: %s" % details.get("text"))
        return json.loads(result["result"]["value"])

    def node(self, selector):
        result = self.bidi.send(
            "script.callFunction",
            {
                "functionDeclaration": "(s) => { const e = document.querySelector(s); if (e) e.scrollIntoView({ block: 'center', inline: 'center' }); return e; }",
                "arguments": [{"type": "string", "value": selector}],
                "target": {"context": self.context},
                "awaitPromise": False,
                "resultOwnership": "root",
            },
        )
        value = result.get("result", {})
        if value.get("type") != "node":
            raise AssertionError("no element %s" % selector)
        return {"sharedId": value["sharedId"]}

    def set_files(self, selector, path):
        self.bidi.send("input.setFiles", {"context": self.context, "element": self.node(selector), "files": [str(p) for p in paths_of(path)]})

    def actions(self, actions):
        self.bidi.send("input.performActions", {"context": self.context, "actions": actions})
        self.bidi.send("input.releaseActions", {"context": self.context})

    def click(self, selector):
        element = self.node(selector)
        self.actions([
            {
                "type": "pointer",
                "id": "mouse",
                "parameters": {"pointerType": "mouse"},
                "actions": [
                    {"type": "pointerMove", "x": 0, "y": 0, "origin": {"type": "element", "element": element}},
                    {"type": "pointerDown", "button": 0},
                    {"type": "pointerUp", "button": 0},
                ],
            }
        ])

    def fill(self, selector, text):
        self.evaluate("(s) => { const e = document.querySelector(s); e.focus(); e.select(); }", selector)
        if self.evaluate("(s) => document.querySelector(s).value !== ''", selector):
            self.press("Backspace")
        self.type(text)

    def key_actions(self, values):
        actions = []
        for value in values:
            actions += [{"type": "keyDown", "value": value}, {"type": "keyUp", "value": value}]
        self.actions([{"type": "key", "id": "keyboard", "actions": actions}])

    def press(self, key):
        if key == "Backspace":
            self.key_actions(["\ue003"])
        elif key.startswith("Shift+"):
            other = BIDI_KEYS[key[6:]]
            self.actions([{"type": "key", "id": "keyboard", "actions": [
                {"type": "keyDown", "value": BIDI_KEYS["Shift"]}, {"type": "keyDown", "value": other},
                {"type": "keyUp", "value": other}, {"type": "keyUp", "value": BIDI_KEYS["Shift"]},
            ]}])
        else:
            self.key_actions([BIDI_KEYS[key]])

    def type(self, text):
        self.key_actions(list(text))

    def screenshot(self, path, full_page=False):
        data = self.bidi.send("browsingContext.captureScreenshot", {"context": self.context, "origin": "document" if full_page else "viewport"})["data"]
        pathlib.Path(path).write_bytes(base64.b64decode(data))

    def set_viewport(self, width, height):
        self.bidi.send("browsingContext.setViewport", {"context": self.context, "viewport": {"width": width, "height": height}})

    def requests(self):
        self.bidi.send("browsingContext.getTree", {"root": self.context})  # events before now have arrived
        return list(self._requests)

    def protocol_errors(self):
        return list(self._errors)

    def close(self):
        self.engine.pages.pop(self.context, None)
        try:
            self.bidi.send("browsingContext.close", {"context": self.context})
            self.bidi.send("browser.removeUserContext", {"userContext": self.user_context})
        except BidiError:
            pass


# ---------------------------------------------------------------------------------------------------------
# WebKitGTK through WebKitWebDriver and selenium

MINIBROWSER_PATHS = [
    "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
    "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
    "/usr/lib/x86_64-linux-gnu/webkitgtk-6.0/MiniBrowser",
    "/usr/libexec/webkit2gtk-4.1/MiniBrowser",
]

WEBDRIVER_KEYS = {
    "Tab": "\ue004", "Enter": "\ue007", "Space": "\ue00d", "Escape": "\ue00c", "ArrowLeft": "\ue012", "ArrowRight": "\ue014",
    "ArrowUp": "\ue013", "ArrowDown": "\ue015", "Backspace": "\ue003", "Home": "\ue011", "End": "\ue010",
}


class WebKitEngine:
    name = "webkit"
    label = "WebKitGTK"

    def __init__(self, executable, scratch):
        try:
            from selenium import webdriver
            from selenium.webdriver.webkitgtk.service import Service
        except ImportError as error:
            raise EngineUnavailable("selenium for Python is missing (pip install selenium)") from error
        if shutil.which(executable) is None:
            raise EngineUnavailable("no %s (apt-get install webkit2gtk-driver)" % executable)
        if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
            raise EngineUnavailable("WebKitGTK needs a display: run under xvfb-run (apt-get install xvfb)")
        browser = next((p for p in MINIBROWSER_PATHS if os.access(p, os.X_OK)), None)
        if browser is None:
            raise EngineUnavailable("no MiniBrowser of WebKitGTK (apt-get install webkit2gtk-driver)")
        # Downloads go to the browser's home folder (no XDG download folder is set up there).
        self.home = tempfile.mkdtemp(prefix="webkit-home-", dir=scratch)
        self.downloads = self.home
        options = webdriver.WebKitGTKOptions()
        options.binary_location = browser
        options.add_argument("--automation")
        options.add_argument("--javascript-can-open-windows-automatically=true")
        service = Service(executable_path=shutil.which(executable), env=dict(os.environ, HOME=self.home))
        self.driver_object = webdriver.WebKitGTK(options=options, service=service)
        self.driver_object.set_script_timeout(180)
        self.version = self.driver_object.capabilities.get("browserVersion")
        self.driver = "WebKitWebDriver, selenium %s" % __import__("selenium").__version__
        # The first window stays on a blank page of its own (file:, so that it may open the page's file: URL).
        blank = pathlib.Path(scratch) / "webkit-home.html"
        blank.write_text("<!DOCTYPE html><title>home</title>")
        self.driver_object.get(blank.as_uri())
        self.home = self.driver_object.current_window_handle

    def page(self, width=1100, height=900, uri=None):
        return WebKitPage(self, width, height, uri)

    def close(self):
        try:
            self.driver_object.quit()
        except Exception:
            pass


class WebKitPage(Page):
    """A window of its own, opened by the engine's first window without a toolbar (window.open with
    toolbar=no), so that its viewport is the window's size and can be as narrow as a phone: MiniBrowser's
    toolbar keeps its main window at least 447 pixels wide."""

    def __init__(self, engine, width, height, uri):
        self.engine = engine
        self.driver = engine.driver_object
        self.driver.switch_to.window(engine.home)
        before = set(self.driver.window_handles)
        self.driver.execute_script(
            "window.open(arguments[0], '_blank', 'width=' + arguments[1] + ',height=' + arguments[2] + ',toolbar=no,location=no,menubar=no,status=no')",
            uri, width, height,
        )
        deadline = time.time() + 30
        while True:
            new = [h for h in self.driver.window_handles if h not in before]
            if new:
                break
            if time.time() > deadline:
                raise AssertionError("WebKitGTK opened no window")
            time.sleep(0.05)
        self.handle = new[0]
        self.driver.switch_to.window(self.handle)
        deadline = time.time() + 30
        while self.driver.execute_script("return document.readyState + ' ' + location.href") != "complete " + uri:
            if time.time() > deadline:
                raise AssertionError("the page did not load in WebKitGTK")
            time.sleep(0.05)
        self.set_viewport(width, height)
        self.install_recorders()

    def evaluate(self, function, arg=None):
        script = (
            "const done = arguments[arguments.length - 1];"
            "Promise.resolve().then(() => (%s)(JSON.parse(arguments[0])))"
            ".then((v) => done(JSON.stringify({ value: v === undefined ? null : v })),"
            " (e) => done(JSON.stringify({ error: String(e && e.stack || e) })));" % function
        )
        answer = json.loads(self.driver.execute_async_script(script, json.dumps(arg)))
        if "error" in answer:
            raise AssertionError("script failed in WebKitGTK: %s" % answer["error"])
        return answer["value"]

    def element(self, selector):
        from selenium.webdriver.common.by import By

        self.evaluate("(s) => { const e = document.querySelector(s); if (e) e.scrollIntoView({ block: 'center', inline: 'center' }); }", selector)
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def set_files(self, selector, path):
        # WebDriver's Element Send Keys: several files, one a line, for an input with `multiple`.
        self.element(selector).send_keys("\n".join(str(p) for p in paths_of(path)))

    def click(self, selector):
        self.element(selector).click()

    def fill(self, selector, text):
        element = self.element(selector)
        element.clear()
        element.send_keys(text)

    def press(self, key):
        from selenium.webdriver.common.action_chains import ActionChains

        chain = ActionChains(self.driver)
        if key.startswith("Shift+"):
            chain.key_down("\ue008").send_keys(WEBDRIVER_KEYS[key[6:]]).key_up("\ue008")
        else:
            chain.send_keys(WEBDRIVER_KEYS[key])
        chain.perform()

    def type(self, text):
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.driver).send_keys(text).perform()

    def screenshot(self, path, full_page=False):
        # WebKitGTK paints on its own schedule: wait for two frames, then a little, so the shot is current.
        self.evaluate("() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))")
        time.sleep(0.25)
        self.driver.save_screenshot(str(path))

    def set_viewport(self, width, height):
        self.driver.set_window_size(width, height)
        deadline = time.time() + 10
        while self.evaluate("() => [innerWidth, innerHeight]") != [width, height]:
            if time.time() > deadline:
                raise AssertionError("WebKitGTK's viewport is %r, not %r" % (self.evaluate("() => [innerWidth, innerHeight]"), [width, height]))
            time.sleep(0.05)

    def requests(self):
        return self.evaluate(RESOURCES)

    def close(self):
        try:
            self.driver.switch_to.window(self.handle)
            self.driver.close()
        finally:
            self.driver.switch_to.window(self.engine.home)


ENGINES = {"chromium": ChromiumEngine, "firefox": FirefoxEngine, "webkit": WebKitEngine}

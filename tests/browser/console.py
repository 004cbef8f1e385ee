# SPDX-License-Identifier: GPL-2.0-only
"""console.py - drive the fleet console in headless Chromium (TAP lines).

Run by tests/browser/test_console.sh, which starts the verifier and the
agents and passes, in the environment: CONSOLE_URL, CONSOLE_CA (the TLS
certificate), CONSOLE_TOKEN, CONSOLE_READER (a reader's token), CONSOLE_SHOTS (the screenshot folder),
CONSOLE_KERNEL (tests/tools/fake_kernel), CONSOLE_MACHINES (JSON: id ->
{list, tcti}) and CONSOLE_TAP_START (TAP lines printed before).

What a person would do, step by step, with a screenshot of each: a wrong
token is refused and shows nothing; a reader's token shows the fleet and
no Approve or Remove button; the right one shows the fleet; an
unknown file turns web-1 untrusted on the page within seconds; evil-1's
paths of HTML and script show as literal text and run nothing; a
reference is added, a removal cancelled and a pending machine approved
through the in-page dialog; an idle machine view reads its records again
only when the machine says they may have changed.
"""
import json
import os
import ssl
import subprocess
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import (NoAlertPresentException,
                                        WebDriverException)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

URL = os.environ["CONSOLE_URL"]
CA = os.environ["CONSOLE_CA"]
TOKEN = os.environ["CONSOLE_TOKEN"]
READER = os.environ["CONSOLE_READER"]
SHOTS = os.environ["CONSOLE_SHOTS"]
KERNEL = os.environ["CONSOLE_KERNEL"]
MACHINES = json.loads(os.environ["CONSOLE_MACHINES"])
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; "
       "connect-src 'self'; img-src 'self'; base-uri 'none'; "
       "form-action 'none'; frame-ancestors 'none'")
# What evil-1 measures: a path that closes a cell and opens a script, and
# one whose markup would run a handler. Both start with "/" so that they
# can be references too.
SCRIPT_PATH = "/opt/</td><script>window.__pwned=1</script>"
IMG_PATH = "/opt/<img src=x onerror=alert(1)>.sh"
# Installed before any script of the page (DevTools, so the CSP does not
# apply to it): an alert() or a CSP violation is written down.
WATCH = """
window.__alerts = [];
window.alert = (m) => { window.__alerts.push(String(m)); };
window.__csp = [];
document.addEventListener('securitypolicyviolation',
    (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""

tap = int(os.environ.get("CONSOLE_TAP_START", "0"))
failures = 0
shot_no = 0


def ok(cond, what, detail=""):
    global tap, failures
    tap += 1
    if cond:
        print("ok %d - %s" % (tap, what), flush=True)
    else:
        failures += 1
        print("not ok %d - %s" % (tap, what), flush=True)
        for line in str(detail)[:2000].splitlines():
            print("# " + line, flush=True)
    return cond


def shot(driver, name, show=None):
    """A PNG of the window, scrolled to element id @show if given."""
    global shot_no
    shot_no += 1
    if show:
        js(driver, "document.getElementById(arguments[0])"
           ".scrollIntoView();", show)
    path = os.path.join(SHOTS, "%02d-%s.png" % (shot_no, name))
    driver.save_screenshot(path)
    print("# screenshot " + path, flush=True)


def wait(cond, seconds):
    """cond() until it is true or @seconds pass; its last value."""
    end = time.monotonic() + seconds
    while True:
        try:
            v = cond()
        except WebDriverException:
            v = None
        if v or time.monotonic() > end:
            return v
        time.sleep(0.1)


def kernel(machine, *args):
    m = MACHINES[machine]
    env = dict(os.environ, IMATRUST_TCTI=m["tcti"])
    subprocess.run([KERNEL, m["list"]] + list(args), env=env, check=True,
                   stdout=subprocess.DEVNULL)


def head(path):
    ctx = ssl.create_default_context(cafile=CA)
    with urllib.request.urlopen(URL + path, context=ctx) as r:
        return r.status, dict(r.headers), r.read()


def js(driver, script, *args):
    return driver.execute_script(script, *args)


def fleet_row(driver, machine):
    """[id, state, tnc, boot, last, reason] of @machine's row, or None."""
    return js(driver, """
        const tr = document.querySelector(
            '#fleet-rows tr[data-id="' + arguments[0] + '"]');
        return tr ? [...tr.cells].map((c) => c.textContent) : null;""",
              machine)


def state_of(driver, machine):
    r = fleet_row(driver, machine)
    return r[1] if r else None


def click(driver, css):
    """Click @css; the page may draw it anew meanwhile: find it again."""
    return wait(lambda: driver.find_element(By.CSS_SELECTOR, css).click()
                or True, 5)


def open_machine(driver, machine):
    if driver.find_element(By.ID, "machine").is_displayed():
        driver.find_element(By.ID, "back").click()
    click(driver, '#fleet-rows tr[data-id="%s"]' % machine)
    return wait(lambda: driver.find_element(By.ID, "m-id").text == machine
                and driver.find_element(By.ID, "m-state").text, 10)


def record_paths(driver):
    return js(driver, """return [...document.querySelectorAll(
        '#m-records span.path')].map((s) => s.textContent);""")


def confirm(driver, button_text):
    """The open dialog's confirm button, after checking it is a dialog."""
    d = driver.find_element(By.ID, "confirm")
    opened = wait(lambda: js(driver, "return arguments[0].open;", d), 5)
    ok(opened and driver.find_element(By.ID, "confirm-ok").text ==
       button_text, "a confirmation dialog opens in the page (%s)" %
       button_text)
    return d


def confirmed(driver, state, seconds, name):
    """Confirm the open dialog; the machine view shows @state in time."""
    driver.find_element(By.ID, "confirm-ok").click()
    seen = wait(lambda: driver.find_element(By.ID, "m-state").text ==
                state, seconds)
    shot(driver, name)
    return seen


def main():
    status, h, body = head("/")
    ok(status == 200 and h.get("Content-Security-Policy") == CSP,
       "GET / carries the strict Content-Security-Policy", h)
    ok(h.get("X-Content-Type-Options") == "nosniff" and
       h.get("Referrer-Policy") == "no-referrer" and
       h.get("Cache-Control") == "no-cache" and h.get("ETag"),
       "... nosniff, no referrer, no-cache and an ETag", h)
    status, h, _ = head("/app.js")
    ok(h.get("Content-Type", "").startswith("text/javascript") and
       h.get("Content-Security-Policy") == CSP,
       "GET /app.js: JavaScript under the same CSP", h)

    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu",
              "--window-size=1280,1000", "--disable-dev-shm-usage"):
        opts.add_argument(a)
    opts.set_capability("acceptInsecureCerts", True)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    t0 = time.monotonic()
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"),
                              options=opts)
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                               {"source": WATCH})
        run(driver)
        pwned = js(driver, "return window.__pwned;")
        ok(pwned is None, "window.__pwned is undefined: no script of a "
           "machine ran", pwned)
        alerts = js(driver, "return window.__alerts;")
        try:
            driver.switch_to.alert
            native = True
        except NoAlertPresentException:
            native = False
        ok(alerts == [] and not native, "no alert was opened", alerts)
        csp = js(driver, "return window.__csp;")
        ok(csp == [], "no CSP violation: no markup of a machine reached "
           "the DOM as markup", csp)
        logs = [e for e in driver.get_log("browser")
                if e["level"] == "SEVERE" and "401" not in e["message"]
                and "favicon.ico" not in e["message"]]
        ok(logs == [], "no script error in the console", logs)
    finally:
        driver.quit()
    print("# browser steps took %.1f s" % (time.monotonic() - t0))


def run(driver):
    driver.get(URL + "/")
    wait(lambda: driver.find_element(By.ID, "token").is_displayed(), 10)
    shot(driver, "login")

    # --- a wrong token: refused, nothing shown --------------------------
    driver.find_element(By.ID, "token").send_keys("not-the-token")
    driver.find_element(By.ID, "login-button").click()
    err = wait(lambda: driver.find_element(By.ID, "login-error").text, 10)
    shot(driver, "wrong-token")
    ok(err and err.startswith("Token refused"),
       "a wrong token is refused with a clear message", err)
    ok(not driver.find_element(By.ID, "fleet").is_displayed() and
       js(driver, "return document.getElementById('fleet-rows')"
          ".children.length;") == 0 and
       js(driver, "return sessionStorage.length;") == 0,
       "... no data is shown and the token is not kept")

    # --- a reader's token: the fleet, no action buttons (issue #36) ------
    driver.find_element(By.ID, "token").send_keys(READER)
    driver.find_element(By.ID, "login-button").click()
    seen = wait(lambda: state_of(driver, "pend-1") == "pending", 10)
    who = driver.find_element(By.ID, "whoami").text
    ok(seen and who == "viewer (reader)", "a reader's token shows the "
       "fleet, and the header says whose token and its role", who)
    ok(open_machine(driver, "pend-1") == "pending",
       "... the reader opens pend-1")
    time.sleep(1.5)
    shot(driver, "reader-pending")
    ok(not driver.find_element(By.ID, "m-approve").is_displayed() and
       not driver.find_element(By.ID, "m-remove").is_displayed(),
       "... and sees no Approve or Remove button")
    driver.find_element(By.ID, "back").click()
    driver.find_element(By.ID, "logout").click()
    wait(lambda: driver.find_element(By.ID, "token").is_displayed(), 5)
    ok(driver.find_element(By.ID, "whoami").text == "",
       "forgetting the token forgets its role")

    # --- the right token: the fleet ---------------------------------------
    driver.find_element(By.ID, "token").send_keys(TOKEN)
    driver.find_element(By.ID, "login-button").click()
    seen = wait(lambda: state_of(driver, "web-1") == "trusted" and
                state_of(driver, "evil-1") == "trusted" and
                state_of(driver, "pend-1") == "pending", 10)
    shot(driver, "fleet-trusted")
    ok(seen, "with the right token: web-1 and evil-1 trusted, pend-1 "
       "pending", [fleet_row(driver, m) for m in MACHINES])
    row = fleet_row(driver, "web-1")
    ok(row and row[2] == "allow" and row[4] != "never",
       "... with the TNC recommendation and the last evidence", row)
    ok(wait(lambda: fleet_row(driver, "web-1")[3] == "no firmware log",
            15), "... and the boot column (this agent sends no firmware "
       "log)", fleet_row(driver, "web-1"))
    ok(js(driver, "return sessionStorage.getItem('imatrust-token');") ==
       TOKEN and js(driver, "return localStorage.length;") == 0,
       "the token is in sessionStorage, nothing in localStorage")
    counts = driver.find_element(By.ID, "counts").text
    ok("trusted 2" in counts and "pending 1" in counts,
       "counts per state", counts)
    click(driver, '#counts button[data-state="pending"]')
    shown = js(driver, "return [...document.querySelectorAll("
               "'#fleet-rows tr')].map((t) => t.dataset.id);")
    ok(shown == ["pend-1"], "the state filter shows only pending", shown)
    click(driver, '#counts button[data-state="all"]')

    # --- an unknown file: untrusted, with its reason, by polling ----------
    t = time.monotonic()
    kernel("web-1", "file", "/usr/bin/evil", "not in any image")
    turned = wait(lambda: state_of(driver, "web-1") == "untrusted", 15)
    took = time.monotonic() - t
    shot(driver, "web-1-untrusted")
    row = fleet_row(driver, "web-1")
    ok(turned and took < 8, "web-1 turns untrusted on the page %.1f s "
       "after the unknown file ran" % took, row)
    ok(row and "/usr/bin/evil" in row[5] and "unknown" in row[5] and
       row[2] == "isolate", "... its reason names the file, TNC isolate",
       row)

    # --- paths of HTML and script: text, nothing runs ---------------------
    kernel("evil-1", "file", SCRIPT_PATH, "a")
    kernel("evil-1", "file", IMG_PATH, "b")
    wait(lambda: state_of(driver, "evil-1") == "untrusted", 15)
    row = fleet_row(driver, "evil-1")
    ok(row and (SCRIPT_PATH in row[5] or IMG_PATH in row[5]),
       "evil-1 untrusted, its reason shows a hostile path literally", row)
    shot(driver, "evil-1-untrusted")
    ok(open_machine(driver, "evil-1") == "untrusted",
       "the machine view of evil-1 opens")
    Select(driver.find_element(By.ID, "m-filter")).select_by_value(
        "not-known")
    paths = wait(lambda: (lambda p: p if sorted(p) == sorted(
        [IMG_PATH, SCRIPT_PATH]) else None)(record_paths(driver)), 10)
    shot(driver, "evil-1-records", "m-records")
    ok(paths, "records filtered 'not known': the two hostile paths only",
       record_paths(driver))
    nodes = js(driver, """return [...document.querySelectorAll(
        '#m-records span.path')].map((s) => [s.childNodes.length,
        s.firstChild.nodeType, s.firstChild.data]);""")
    ok(nodes and all(n[0] == 1 and n[1] == 3 for n in nodes) and
       sorted(n[2] for n in nodes) == sorted([SCRIPT_PATH, IMG_PATH]),
       "... each path is one text node holding the literal markup", nodes)
    tags = js(driver, """return [document.scripts.length,
        document.querySelectorAll('img').length,
        document.scripts[0].getAttribute('src')];""")
    ok(tags == [1, 0, "/app.js"], "... no script or img element was made "
       "of them (only /app.js)", tags)
    events = driver.find_element(By.ID, "m-events").text
    ok("untrusted" in events and SCRIPT_PATH in events,
       "state history and events with their reasons", events[:400])
    policy = driver.find_element(By.ID, "m-policy-name").text
    ok(policy != "", "the policy that applies is named", policy)

    # --- a removal cancelled: the dialog gates it -------------------------
    click(driver, "#m-remove")
    confirm(driver, "Remove")
    shot(driver, "remove-dialog")
    driver.find_element(By.ID, "confirm-cancel").click()
    time.sleep(1.5)
    ok(driver.find_element(By.ID, "m-id").text == "evil-1" and
       state_of_api("evil-1") == "untrusted",
       "... Cancel removes nothing")

    # --- add the reference of an unknown record ---------------------------
    ok(open_machine(driver, "web-1") == "untrusted",
       "the machine view of web-1 opens")
    Select(driver.find_element(By.ID, "m-filter")).select_by_value(
        "not-known")
    wait(lambda: record_paths(driver) == ["/usr/bin/evil"], 10)
    accepted = js(driver, """return [...document.querySelectorAll(
        '#m-records tr')].map((t) => t.cells[5].textContent);""")
    ok(accepted == ["not accepted"], "the unknown record: not accepted",
       accepted)
    click(driver, "#m-records button.add-ref")
    confirm(driver, "Add reference")
    detail = driver.find_element(By.ID, "confirm-detail").text
    ok("/usr/bin/evil" in detail and "sha256:" in detail,
       "... the dialog names the path and the digest", detail)
    shot(driver, "add-reference-dialog")
    back = confirmed(driver, "trusted", 10, "web-1-trusted-again")
    ok(back, "after the reference is added web-1 is trusted again",
       driver.find_element(By.ID, "notice").text)
    Select(driver.find_element(By.ID, "m-filter")).select_by_value("")
    wait(lambda: "/usr/bin/evil" in record_paths(driver), 5)
    accepted = js(driver, """return [...document.querySelectorAll(
        '#m-records tr')].map((t) => [t.cells[2].textContent,
        t.cells[5].textContent]);""")
    ok(["/usr/bin/evil", "dir-tree:manual"] in accepted and
       ["/usr/bin/tool", "dir-tree:image"] in accepted,
       "... and each record names the source that accepted it", accepted)

    # --- an idle machine view reads its records only when they may have
    # changed (issue #33: each read explains every record listed) --------
    time.sleep(3)   # the read the filter's change asked for, and any
    js(driver, "performance.clearResourceTimings();")   # still under way
    time.sleep(4)
    reads = js(driver, """const r = performance.getEntriesByType('resource');
        return [r.filter((e) => e.name.endsWith('/v1/machines/web-1')).length,
                r.filter((e) => e.name.includes('/records')).length];""")
    ok(reads[0] >= 2 and reads[1] == 0, "an idle machine view polls the "
       "machine every second and reads no records meanwhile", reads)

    # --- approve the pending machine ---------------------------------------
    ok(open_machine(driver, "pend-1") == "pending",
       "the machine view of pend-1 opens")
    wait(lambda: driver.find_element(By.ID, "m-approve").is_displayed(), 5)
    click(driver, "#m-approve")
    confirm(driver, "Approve")
    fpr = api_machine("pend-1")["ek_fpr"]
    detail = driver.find_element(By.ID, "confirm-detail").text
    ok(fpr and fpr in detail, "... the dialog shows the EK fingerprint "
       "to check", detail)
    shot(driver, "approve-dialog")
    trusted = confirmed(driver, "trusted", 20, "pend-1-trusted")
    ok(trusted, "approved in the page, pend-1 enrolls and is trusted",
       driver.find_element(By.ID, "m-events").text[:400])
    driver.find_element(By.ID, "back").click()
    wait(lambda: state_of(driver, "pend-1") == "trusted", 5)
    shot(driver, "fleet-end")


def api_machine(machine):
    ctx = ssl.create_default_context(cafile=CA)
    req = urllib.request.Request(URL + "/v1/machines/" + machine,
                                 headers={"Authorization":
                                          "Bearer " + TOKEN})
    with urllib.request.urlopen(req, context=ctx) as r:
        return json.load(r)["machine"]


def state_of_api(machine):
    return api_machine(machine)["state"]


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # a step that could not run fails the test
        ok(False, "the browser steps ran to the end", repr(e))
    print("1..%d" % tap)
    sys.exit(1 if failures else 0)

"""The whole cycle on the demo hub, in Chromium, with real accounts, as its users click through it:

1. a student logs in on the hub's page and lands in JupyterLab;
2. she fetches the assignment in nbgrader's Assignments panel;
3. she writes her answers (the reference solution, put in through her server's contents API as an
   editor saves them), runs every cell, and the self-check agrees with the book and shows the kit's
   due date;
4. she submits in the panel, after the due date of the demo's term;
5. the TA, in formgrader in a tab of its own, collects and autogrades (in the sandbox: the log says so,
   and the late penalty of the term's rules is in it);
6. the TA grades a written answer in formgrader's submission view;
7. the TA generates and releases the feedback;
8. the student fetches it in the panel and opens it: its term lines (received, due, days late, raw
   score, penalty, final grade) are those the course computes for her;
9. the instructor grants an extension on the command line (as the grader account);
10. the feedback is generated and released again, and the student's new feedback shows the extension
    and the grade without the penalty.

No request of any page leaves 127.0.0.1. Each step's seconds are printed when the demo stops."""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
import time
from pathlib import Path

import pytest

from autograder.assignments import get
from autograder.authoring.submissions import filled
from autograder.coursedir import config
from autograder.hub import demo
from autograder.term import policy

from ..browser import CHROMIUM, FLAGS, need_browser
from .demo_hub import GRADER, SERVICE, runs_as

pytestmark = pytest.mark.hub

A = demo.LATE_ASSIGNMENT
STUDENT = "ada"
#: Milliseconds a page or a step in it may take (a server spawned, a submission autograded).
WAIT = 180_000


@pytest.fixture(scope="module")
def chromium():
    need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        yield browser
        browser.close()


class Person:
    """One person's browser (a context of their own: their own cookies) and what their pages asked
    of any host but this one."""

    def __init__(self, chromium, base: str, name: str, password: str):
        self.base, self.name = base, name
        self.context = chromium.new_context(viewport={"width": 1400, "height": 900})
        self.context.set_default_timeout(WAIT)
        self.outside: list[str] = []
        self.context.route("**/*", self._local_only)
        self.page = self.context.new_page()
        self.page.goto(base + "hub/login")
        self.page.fill("#username_input", name)
        self.page.fill("#password_input", password)
        self.page.click("#login_submit")
        self.page.wait_for_url(lambda url: "/hub/login" not in url)

    def _local_only(self, route) -> None:
        if route.request.url.startswith(("http://127.0.0.1:", "about:", "data:", "blob:")):
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def cookie(self, name: str, path: str) -> str:
        return next(c["value"] for c in self.context.cookies() if c["name"] == name and c["path"] == path)


def _assignments_panel(page):
    page.click("#jp-MainMenu >> text=Nbgrader")
    page.click("text=Assignment List")
    page.locator("#released_assignments_list").wait_for()


def _modal(page) -> str:
    """The text of formgrader's answer to a button, closed after."""
    dialog = page.locator(".modal-dialog")
    dialog.wait_for()
    text = dialog.inner_text()
    dialog.get_by_role("button", name="OK").click()
    dialog.wait_for(state="hidden")
    return text


def _grader_runs(running, *command: str) -> str:
    """A command of the staff's Python (the demo's staff environment, else this one) as the grader
    account, in the course; its output."""
    staff = running.folder / "staff-env" / "bin" / "python"
    python = str(staff if staff.exists() else Path(sys.prefix) / "bin" / "python")
    home = running.folder / "home" / GRADER
    variables = [f"HOME={home}", "PATH=/usr/bin:/bin", "LANG=C.UTF-8", "AUTOGRADER_WARM=0"]
    done = runs_as(GRADER, "env", "-i", f"--chdir={running.course}", *variables, python, *command)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _term_lines(running) -> list[str]:
    """The term's lines the course computes for the student's feedback (`autograder.term.notes`)."""
    code = (
        "import json; from autograder.coursedir import config; from autograder.term.notes import notes; "
        f"r = {str(running.course)!r}; s = config.load(r); "
        f"print(json.dumps(notes(s, config.database_url(r, s), {A!r}, {STUDENT!r})))"
    )
    return json.loads(_grader_runs(running, "-c", code))


def _feedback(student: Person) -> str:
    """Fetch the newest feedback in the Assignments panel, open it from the file browser, and return
    its text (JupyterLab shows the page in a frame). JupyterLab starts afresh first (`?reset`: no tab
    of an earlier feedback page is restored)."""
    page = student.page
    page.goto(student.base + f"user/{student.name}/lab?reset")
    page.locator("#jp-main-dock-panel").wait_for()
    _assignments_panel(page)
    item = page.locator("#submitted_assignments_list .list_item", has_text=A).first
    item.get_by_role("button", name="Fetch Feedback").click()
    view = page.locator("#submitted_assignments_list a", has_text="view feedback").first
    view.wait_for()
    view.click()
    pages = page.locator(".jp-DirListing-item", has_text=".html")
    pages.first.wait_for()
    assert pages.count() == 1, "one feedback page in the folder of the newest feedback"
    pages.first.dblclick()
    frame = page.frame_locator("#jp-main-dock-panel iframe").first
    frame.locator("main").wait_for()  # the page itself, not the empty frame JupyterLab shows while it loads it
    return frame.locator("body").inner_text()


def test_the_whole_cycle_in_a_browser_with_real_accounts(running_hub, chromium, capsys):
    running, times = running_hub, running_hub.times
    base, people = running.base, running.people
    formgrader = base + SERVICE + "/formgrader/"

    step = time.perf_counter()
    ada = Person(chromium, base, STUDENT, people[STUDENT].password)
    ada.page.locator("#jp-main-dock-panel").wait_for()
    assert ada.page.url.startswith(base + f"user/{STUDENT}/lab")
    times["1 log in, JupyterLab"] = time.perf_counter() - step

    step = time.perf_counter()
    _assignments_panel(ada.page)
    ada.page.locator("#released_assignments_list .list_item", has_text=A).get_by_role("button", name="Fetch").click()
    ada.page.locator("#fetched_assignments_list .list_item", has_text=A).first.wait_for()
    fetched = running.folder / "home" / STUDENT / A / f"{A}.ipynb"
    assert fetched.is_file() and fetched.stat().st_uid == people[STUDENT].uid
    times["2 fetch"] = time.perf_counter() - step

    step = time.perf_counter()
    answered = filled(fetched, get(A))
    saved = ada.page.request.put(
        base + f"user/{STUDENT}/api/contents/{A}/{A}.ipynb",
        data=json.dumps({"type": "notebook", "format": "json", "content": answered}),
        headers={"X-XSRFToken": ada.cookie("_xsrf", f"/user/{STUDENT}/"), "Content-Type": "application/json"},
    )
    assert saved.status == 200, saved.text()
    ada.page.goto(base + f"user/{STUDENT}/lab/tree/{A}/{A}.ipynb")
    ada.page.locator(".jp-Notebook").wait_for()
    ada.page.locator("#jp-main-statusbar", has_text="Idle").wait_for()  # its kernel started
    ada.page.click("#jp-MainMenu >> text=Run")
    ada.page.click("text=Run All Cells")
    summary = ada.page.locator(".jp-Cell", has_text="check.summary()").locator(".jp-OutputArea")
    summary.filter(has_text="Checks right").wait_for()
    counted = re.search(r"Checks right: (\d+) of (\d+)", summary.inner_text())
    assert counted and counted[1] == counted[2] and int(counted[1]) >= len(get(A).graded), summary.inner_text()
    due = policy.rules(config.load(running.course), A).due
    assert f"Due: {due.astimezone(dt.timezone.utc):%Y-%m-%d %H:%M} (UTC)." in summary.inner_text()
    self_check = ada.page.locator(".jp-Cell", has_text='check("ex_11_7_3"').locator(".jp-OutputArea")
    assert "agrees with the book's reference answer" in self_check.inner_text()
    times["3 answers, run all, self-check"] = time.perf_counter() - step

    step = time.perf_counter()
    _assignments_panel(ada.page)
    ada.page.locator("#fetched_assignments_list .list_item", has_text=A).first.get_by_role(
        "button", name="Submit"
    ).click()
    ada.page.locator("#submitted_assignments_list .list_item", has_text=A).first.wait_for()
    assert dt.datetime.now(dt.timezone.utc) > due, "the demo's term makes this hand-in late"
    times["4 submit (late)"] = time.perf_counter() - step

    step = time.perf_counter()
    ta = Person(chromium, base, "ta", people["ta"].password)
    fg = ta.context.new_page()  # formgrader in a tab of its own
    fg.goto(formgrader + "manage_assignments")
    fg.locator("#main-table tr", has_text=A).locator("td.collect a").click()
    assert f"Successfully collected submissions of '{A}'" in _modal(fg)
    fg.goto(formgrader + f"manage_submissions/{A}")
    fg.locator("#main-table tr", has_text=STUDENT).locator("td.autograde a").click()
    log = _modal(fg)
    assert f"Successfully autograded '{A}' for student '{STUDENT}'" in log, log[-3000:]
    assert "sandbox: user, pid, net, mount" in log and "late penalty" in log, log[-3000:]
    times["5 TA collects, autogrades"] = time.perf_counter() - step

    step = time.perf_counter()
    fg.goto(formgrader + f"gradebook/{A}/{A}")
    fg.locator("#main-table a.name-hidden").first.click()
    written = get(A).written[0].name
    box = fg.locator(f"#{written}")
    box.wait_for()
    fg.wait_for_function("() => window.formgrader && formgrader.grades && formgrader.grades.loaded")
    with fg.expect_response(lambda r: "/formgrader/api/grade/" in r.url and r.request.method == "PUT") as answer:
        box.fill("1")
        box.evaluate("box => box.blur()")
    grade = answer.value.json()
    assert answer.value.status == 200 and grade["name"] == written and grade["manual_score"] == 1, grade
    times["6 TA grades a written answer"] = time.perf_counter() - step

    def release_feedback() -> None:
        fg.goto(formgrader + "manage_assignments")
        row = fg.locator("#main-table tr", has_text=A)
        row.locator("td.generate-feedback a").click()
        assert "Success" in _modal(fg)
        row.locator("td.release-feedback a").click()
        assert "Feedback released to" in _modal(fg)

    step = time.perf_counter()
    release_feedback()
    times["7 feedback generated, released"] = time.perf_counter() - step

    step = time.perf_counter()
    first = _feedback(ada)
    late = _term_lines(running)
    assert all(line in first for line in late), (late, first[:3000])
    assert any("late" in line for line in late), late
    times["8 student fetches, opens feedback"] = time.perf_counter() - step

    step = time.perf_counter()
    until = (due + dt.timedelta(days=1)).astimezone(dt.timezone.utc)
    said = _grader_runs(
        running,
        "-m",
        "autograder",
        "--root",
        str(running.course),
        "extend",
        STUDENT,
        A,
        "--until",
        until.isoformat(),
        "--reason",
        "a doctor's note",
    )
    assert f"extended {A} for {STUDENT}" in said, said
    release_feedback()
    second = _feedback(ada)
    extended = _term_lines(running)
    assert extended != late and all(line in second for line in extended), (extended, second[:3000])
    assert f"{until:%Y-%m-%d %H:%M}" in second and "a doctor's note" in second, second[:3000]
    times["9-10 extension on the CLI, feedback again"] = time.perf_counter() - step

    assert ada.outside == [] and ta.outside == [], (ada.outside, ta.outside)
    with capsys.disabled():
        print("\n  " + "\n  ".join(f"{what}: {seconds:.1f} s" for what, seconds in times.items() if what[0].isdigit()))

"""`python -m autograder <command>`: the instructor's one command line, run from the course root.

Each command imports what it needs when it runs (nbgrader, SymPy and matplotlib cost a second or
more of start-up), and `autograde` starts the sandbox's zygote first, so that it comes up while the
rest is imported."""

from __future__ import annotations

import argparse
import difflib
import sys
import time
from pathlib import Path

from rnnkit import messages

from ..coursedir import config, privacy
from ..coursedir.layout import Course, CourseNotFound
from ..labels import label


def _names(args, root: Path) -> list[str]:
    from . import course

    known = course.assignments(root)
    unknown = [name for name in args.assignments if name not in known]
    if unknown:
        guesses = [match for name in unknown for match in difflib.get_close_matches(name, known, n=1)]
        hint = f" (did you mean {', '.join(guesses)}?)" if guesses else ""
        raise SystemExit(f"unknown assignment(s) {unknown}{hint}; course_config.py lists {known}")
    return args.assignments or known


#: The submissions of an autograde whose scores it prints (the rest are in the report and exports).
SHOWN = 50


def _autograde(args, root: Path) -> int:
    if not args.dask:
        from ..sandbox import session  # noqa: F401 (imports nbformat before the assignments fill the heap with SymPy objects)
        from ..sandbox.zygote import prestart

        prestart(args.workers or config.load(root).WORKERS)  # up while the rest imports; `course.autograde` claims it
    from ..grading.attempts import NoSecret
    from ..grading.execute import SandboxUnavailable
    from ..grading.runners import InsecureDask, interruptible
    from . import course

    interrupted = False
    with interruptible() as stop:  # a Ctrl-C after the grading too ends with the line that says what is done
        try:
            outcomes = course.autograde(
                root,
                _names(args, root),
                students=args.student or None,
                workers=args.workers,
                dask=args.dask,
                unsandboxed=args.unsandboxed,
                redo=getattr(args, "redo", False),
                stop=stop,
            )
        except (FileNotFoundError, SandboxUnavailable, NoSecret, InsecureDask) as error:
            raise SystemExit(str(error)) from None
        except course.Interrupted as stopped:
            outcomes, interrupted = stopped.outcomes, True
        failed = _summary(root, outcomes)
        if stop.is_set() and not interrupted:
            print(label("cli.interrupted", graded=len(outcomes), left=0), flush=True)
            interrupted = True
    return 130 if interrupted else 1 if failed else 0


def _summary(root: Path, outcomes: list) -> list:
    """Print what an autograde did: a line for each failed or refused submission, the scores of the
    first SHOWN graded ones and the count. Returns the outcomes that failed."""
    from ..intake.escape import shown
    from ..reporting import classdata, report

    failed = [o for o in outcomes if not o.ok]
    for outcome in failed:
        if outcome.refused:
            print(
                shown(
                    label("cli.refused", submission=f"{outcome.assignment}/{outcome.student}", reason=outcome.refused)
                ),
                file=sys.stderr,
            )
        else:
            print(
                shown(label("cli.failed", submission=f"{outcome.assignment}/{outcome.student}", log=outcome.log)),
                file=sys.stderr,
            )
    graded = sorted({(o.student, o.assignment) for o in outcomes if o.ok})
    listed = set(graded[:SHOWN])  # the class data of these alone: the command's memory does not grow with the class
    data = classdata.load(root, sorted({s for s, _ in listed})) if listed else None
    rows = [row for row in data.rows if (row.student, row.assignment) in listed] if data else []
    if rows:
        print(report.score_table(rows, data))  # with the late penalty and final grade where the term applies
    if len(graded) > len(listed):
        print(label("cli.more_graded", more=len(graded) - len(listed)))
    if outcomes:
        print(
            label(
                "cli.autograded",
                graded=len(outcomes) - len(failed),
                total=len(outcomes),
                seconds=f"{sum(o.seconds for o in outcomes) / len(outcomes):.2f}",
            )
        )
    return failed


def _demo(args, root: Path) -> int:
    """Release, grade, give feedback on and report the bundled sample class, in a course of its
    own (`demo-course/`, made anew each time), never in the real course's gradebook or folders."""
    from ..authoring import sample
    from ..reporting import classdata, exports, report, similarity_page
    from . import course

    start = time.perf_counter()
    demo = Course(root).start_course(Course(root).demo).root
    privacy.enter(demo, config.load(demo))
    print(label("cli.demo_course", demo=demo, root=root))
    names = course.assignments(demo)
    course.release(demo, names)
    for name in names:
        for student, what in sample.write_sample_class(demo, name).items():
            print(f"{name:<16} {student:<6} {what}")
    args.assignments, args.student = names, None
    status = _autograde(args, demo)
    course.feedback(demo, names)
    sheets = exports.export(demo)
    data = classdata.load(demo)
    html = report.write_html(data, Course(demo).reports / "class-report.html")
    similar = [similarity_page.write(demo, name)[0] for name in names]
    print(
        label(
            "cli.demo_outputs",
            demo=demo,
            sheets=", ".join(str(p.relative_to(demo)) for p in sheets),
            report=html.relative_to(demo),
            similarity=", ".join(str(p.relative_to(demo)) for p in similar),
        )
    )
    print(label("cli.demo_finished", seconds=f"{time.perf_counter() - start:.1f}"))
    return status


#: What `python -m autograder --help` says above the commands, which it lists in the order a term uses them.
DESCRIPTION = """The instructor's command line, run from the course root (or given --root).
A term: release each assignment, hand out the kit, autograde what students hand in, return the
feedback, export the grades and read the class report; extend, regrade and history keep the term's
record; demo runs all of it on a sample class, tables prints the book's numbers."""

#: Help of an ASSIGNMENT list; an empty list means every assignment of course_config.ASSIGNMENTS.
ASSIGNMENTS_HELP = "assignments by name (default: every assignment in course_config.ASSIGNMENTS)"


def _parser() -> argparse.ArgumentParser:
    shared = argparse.ArgumentParser(add_help=False)
    shared.add_argument(
        "--root",
        type=Path,
        default=argparse.SUPPRESS,
        help="course root (default: the nearest folder at or above the working folder with course_config.py)",
    )
    parser = argparse.ArgumentParser(prog="python -m autograder", description=DESCRIPTION, parents=[shared])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, text: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=text, description=text, parents=[shared])

    def students(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--student", action="append", help="only this student id (repeatable)")

    def workers(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--workers", type=int, default=None, help="parallel workers (default: course_config.WORKERS)")

    release = command("release", "build source notebooks and run nbgrader generate_assignment")
    release.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help=ASSIGNMENTS_HELP)
    release.add_argument("--force", action="store_true", help="overwrite source notebooks edited by hand")
    command("kit", "build the student kit's wheel (the public half only)").add_argument(
        "--out", type=Path, default=Path("dist"), help="folder for the wheel (default: dist/)"
    )
    grade = command(
        "autograde",
        "nbgrader autograde every submission not graded yet as it stands, in parallel, student code sandboxed",
    )
    grade.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help=ASSIGNMENTS_HELP)
    grade.add_argument(
        "--redo", action="store_true", help="grade again the submissions graded already (unchanged since)"
    )
    students(grade)
    feedback = command(
        "feedback",
        "nbgrader generate_feedback for the autograded submissions whose page is stale "
        "(never made, or its grade, comments, term lines or expected values moved since)",
    )
    feedback.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help=ASSIGNMENTS_HELP)
    students(feedback)
    feedback.add_argument("--all", action="store_true", help="make every page again, stale or not")
    feedback.add_argument(
        "--release",
        action="store_true",
        help="then nbgrader release_feedback for the assignments of the pages made (for a schedule: cron)",
    )
    export = command(
        "export",
        "grades.csv, scores.csv, canvas.csv, questions.csv, question_stats.csv, parameter_stats.csv "
        "(docs/grade-sheets.md)",
    )
    export.add_argument("--out", type=Path, default=None, help="folder for the sheets (default: exports/)")
    students(export)
    command("report", "class report (HTML) and the score table").add_argument(
        "--out", type=Path, default=None, help="the HTML file (default: reports/class-report.html)"
    )
    command(
        "similarity",
        "which graded submissions share code, and which return another student's hidden value "
        "(a reason to look, not a verdict)",
    ).add_argument("assignment", metavar="ASSIGNMENT", help="the assignment")
    lti = command(
        "lti",
        "grades to the LMS through LTI 1.3: the tool's key set to register, or a push of the scores (docs/lms.md)",
    )
    actions = lti.add_subparsers(dest="action", required=True, metavar="ACTION", help="key, push or roster")
    for name, text in (
        ("key", "print the tool's public key set (JWKS) to register with the LMS"),
        ("push", "send the final grades that changed since the last push to the LMS"),
        ("roster", "read the class list from the LMS (Names and Roles) into LTI_ROSTER and the gradebook"),
    ):
        actions.add_parser(name, help=text, description=text, parents=[shared])
    actions.choices["key"].add_argument(
        "--pem", action="store_true", help='the public key in PEM instead (Moodle\'s "RSA key")'
    )
    push = actions.choices["push"]
    push.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help=ASSIGNMENTS_HELP)
    push.add_argument("--dry-run", action="store_true", help="print what would be sent, and send nothing")
    actions.choices["roster"].add_argument(
        "--dry-run", action="store_true", help="print what the class list holds, and write nothing"
    )
    extend = command(
        "extend",
        "extend one student's due date of an assignment or grant more attempts, late days or a later close, "
        "or those of a --csv file, with a reason",
    )
    extend.add_argument("student", nargs="?", help="the student id")
    extend.add_argument("assignment", nargs="?", help="the assignment")
    when = extend.add_mutually_exclusive_group()
    when.add_argument(
        "--csv",
        metavar="FILE",
        type=Path,
        help="a CSV file: columns student,assignment and one or more of until,attempts,late_days,closes; "
        "all of it granted, or none",
    )
    when.add_argument(
        "--until",
        metavar="TIME",
        help='the new due date, "2027-03-08 23:59" in the course\'s TIMEZONE or with an offset',
    )
    when.add_argument("--revoke", action="store_true", help="end the extension in force")
    extend.add_argument("--attempts", type=int, metavar="N", help="N more attempts that count, for this student")
    extend.add_argument("--late-days", type=int, metavar="N", help="N late days for this assignment, spent first")
    extend.add_argument("--closes", metavar="TIME", help="a later close date for this student")
    extend.add_argument("--reason", required=True, help="why (kept in the grade history and shown in the feedback)")
    regrade = command(
        "regrade", "grade an assignment again after a fix: --preview what moves, apply with a --reason, or --revert"
    )
    regrade.add_argument("assignment", nargs="?", help="the assignment (not with --revert: the entry says)")
    students(regrade)
    workers(regrade)
    how = regrade.add_mutually_exclusive_group(required=True)
    how.add_argument(
        "--preview", action="store_true", help="grade again in a scratch copy and print whose grades would move"
    )
    how.add_argument("--reason", help="grade again in the course and record why in the grade history")
    how.add_argument(
        "--revert", type=int, metavar="ENTRY", help="put back the grades as they were before history entry ENTRY"
    )
    students(command("history", "the grade history: regrades, extensions and reverts, with what moved"))
    demo = command("demo", "release, autograde the sample class, feedback, export and report, in demo-course/")
    for sub in (grade, demo):
        workers(sub)
        sub.add_argument(
            "--dask",
            default=None,
            metavar="ADDRESS",
            help='run on Dask: "local" for a LocalCluster, or a scheduler address',
        )
        sub.add_argument(
            "--unsandboxed", action="store_true", help="grade even where this machine gives no sandbox for student code"
        )
    hub = command(
        "hub", "the course on a JupyterHub: its jupyterhub_config.py, or a demo hub on this host (docs/hub.md)"
    )
    hub_actions = hub.add_subparsers(dest="action", required=True, metavar="ACTION", help="config or demo")
    hub_config = hub_actions.add_parser(
        "config",
        help="print a commented jupyterhub_config.py for this course",
        description="print a commented jupyterhub_config.py for this course",
        parents=[shared],
    )
    hub_config.add_argument("--student", action="append", default=[], help="a student's login name (repeatable)")
    hub_config.add_argument("--ta", action="append", default=[], help="a TA's login name (repeatable)")
    hub_demo = hub_actions.add_parser(
        "demo",
        help="as root: accounts for the sample class, a TA and the grader, and a real hub until Ctrl-C",
        description="as root: accounts for the sample class, a TA and the grader, and a real hub until Ctrl-C",
        parents=[shared],
    )
    for sub in (hub_config, hub_demo):
        sub.add_argument("--port", type=int, default=8000, help="the hub's port on 127.0.0.1 (default 8000)")
    command("tables", "recompute the book's tables, print the state log, write run.json").add_argument(
        "--out", type=Path, default=None, help="where to write run.json (default: data/part-iii/run.json)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "tables":
        from ..authoring import book

        return book.main(args.out)
    try:
        course = Course.at(args.root) if "root" in args else Course.find()
        settings = config.checked(course.root)
        demo = args.command == "demo" or (args.command == "hub" and args.action == "demo")
        if not demo:  # a demo reads this course's settings alone, and checks the course it makes
            privacy.enter(course.root, settings)
        lang = course.language
    except (CourseNotFound, ValueError) as error:
        raise SystemExit(str(error)) from None
    with messages.speaking(lang):  # every message of the command, and of the runners it starts
        return _run(args, course.root)


def _run(args, root: Path) -> int:
    """One command of the course at `root`."""
    if args.command == "autograde":
        return _autograde(args, root)
    if args.command == "hub":
        return _hub(args, root)
    import nbformat  # noqa: F401 - before the assignments, which fill the heap with SymPy objects

    from ..authoring import kit
    from ..reporting import classdata, exports, report
    from . import course

    if args.command == "release":
        try:
            course.release(root, _names(args, root), force=args.force)
        except course.HandEdited as error:
            raise SystemExit(str(error)) from None
        _say_kit(root)
    elif args.command == "feedback":
        try:
            names = _names(args, root)  # checks the names given
            made = course.feedback(
                root,
                names if args.assignments else None,
                students=args.student or None,
                every=args.all,
                release=args.release,
            )
            shown = ", ".join(f"{a}/{s}" for a, s in made[:5]) + (" ..." if len(made) > 5 else "")
            print(label("cli.feedback_made", count=len(made), pages=shown) if made else label("cli.feedback_none"))
        except (FileNotFoundError, ValueError) as error:
            raise SystemExit(str(error)) from None
    elif args.command == "export":
        try:
            for path in exports.export(root, args.out, students=args.student or None):
                print(path)
        except exports.UnknownStudent as error:
            raise SystemExit(str(error)) from None
    elif args.command == "report":
        data = classdata.load(root)
        print(report.score_table(data))
        from ..intake.escape import shown

        for line in report.failed_lines(data):
            print(shown(line), file=sys.stderr)
        print(report.write_html(data, args.out or Course(root).reports / "class-report.html"))
    elif args.command == "similarity":
        return _similarity(args, root)
    elif args.command == "kit":
        wheel = kit.build(args.out, root)
        kit.record_built(root)
        print(wheel)
        print(label("kit.hand_out", wheel=wheel.name, version=kit.version(root)))
    elif args.command == "demo":
        return _demo(args, root)
    elif args.command in ("extend", "regrade", "history"):
        return _term(args, root)
    elif args.command == "lti":
        return _lti(args, root)
    return 0


def _hub(args, root: Path) -> int:
    """hub config: the course's jupyterhub_config.py on stdout; hub demo: a real hub until Ctrl-C."""
    from ..hub import config_file, demo, plan

    if args.action == "config":
        from ..lms import names, registration

        made: list[Path] = []
        try:
            hub = plan.for_course(root, args.student, args.ta, args.port, made)
        except (registration.RegistrationError, names.UserNameError) as error:
            raise SystemExit(f"hub config: {error}") from None
        if made:
            print(label("lti.key_made", path=made[0]), file=sys.stderr)
        print(config_file.render(hub), end="")
        return 0
    return demo.run(root, args.port)


def _similarity(args, root: Path) -> int:
    """similarity ASSIGNMENT: the page and the two CSVs, and a line of what they hold."""
    from ..reporting import similarity_page

    _names(argparse.Namespace(assignments=[args.assignment]), root)
    try:
        *paths, found = similarity_page.write(root, args.assignment)
    except similarity_page.NoRelease as error:
        raise SystemExit(str(error)) from None
    for path in paths:
        print(path)
    print(
        label(
            "similarity.summary", students=str(found.students), pairs=str(len(found.pairs)), flags=str(len(found.flags))
        )
    )
    return 0


def _launch_urls(hub_url: str) -> None:
    """On stderr: the URLs an LMS asks for to launch people into the hub at `hub_url` (or how to get them)."""
    from ..hub import plan

    if not hub_url.strip():
        print(label("lti.no_hub_url"), file=sys.stderr)
        return
    found = plan.launch_urls(hub_url)
    print(
        label(
            "lti.launch_urls",
            target=found["target_link_uri"],
            login=found["login_initiation"],
            redirect=found["redirect"],
            jwks=found["jwks"],
        ),
        file=sys.stderr,
    )


def _lti(args, root: Path) -> int:
    """lti key and lti push: exit 0 when every mapped student's score was accepted, 1 when the LMS
    refused some (listed), 2 when nothing more could be sent."""
    from ..intake.escape import shown
    from ..lms import members, names, push, registration, roster

    try:
        if args.action == "key":
            made: list[Path] = []
            registration.private_key(root, made)
            if made:
                print(label("lti.key_made", path=made[0]), file=sys.stderr)
            _launch_urls(config.load(root).HUB_URL)
            print(registration.public_pem(root).strip() if args.pem else registration.key_set_text(root))
            return 0
        if args.action == "roster":
            return _roster(root, members.read(root, dry_run=args.dry_run), args.dry_run)
        outcome = push.push(root, _names(args, root) if args.assignments else None, dry_run=args.dry_run)
    except (registration.RegistrationError, roster.RosterError, names.UserNameError) as error:
        print(shown(str(error)), file=sys.stderr)
        return 2
    for assignment in outcome.created:
        print(label("lti.created", assignment=assignment))
    for assignment, was, maximum in outcome.updated:
        print(label("lti.updated", assignment=assignment, was=was, maximum=f"{maximum:g}"))
    for score in outcome.sent:  # ids and the LMS's words shown escaped (`shown`): none retitles the terminal
        print(
            shown(
                label(
                    "lti.would_send" if args.dry_run else "lti.sent",
                    submission=f"{score.assignment}/{score.student}",
                    user=score.user_id,
                    given=f"{score.given:.2f}",
                    maximum=f"{score.maximum:.2f}",
                    progress=score.progress,
                )
            )
        )
    for score, message in outcome.refused:
        print(
            shown(label("lti.refused", submission=f"{score.assignment}/{score.student}", message=message)),
            file=sys.stderr,
        )
    if outcome.unmapped:
        print(shown(label("lti.unmapped", students=", ".join(outcome.unmapped))), file=sys.stderr)
    if outcome.stopped:
        print(label("lti.stopped", reason=outcome.stopped), file=sys.stderr)
    print(
        label(
            "lti.dry_run_summary" if args.dry_run else "lti.summary",
            sent=str(len(outcome.sent)),
            unchanged=str(len(outcome.unchanged)),
            refused=str(len(outcome.refused)),
        )
    )
    return outcome.exit_code


def _roster(root: Path, outcome, dry_run: bool) -> int:
    """What `lti roster` found, one line a member (ids and names shown escaped); its exit code."""
    from ..coursedir.config import load
    from ..intake.escape import shown

    for learner in outcome.joined:
        who = " ".join(part for part in (learner.given, learner.family) if part) or "-"
        joined = "lti.would_join" if dry_run else "lti.joined"
        print(shown(label(joined, student=learner.name, user=learner.user_id, who=who)))
    for student in outcome.left:
        print(shown(label("lti.left", student=student)))
    for person in outcome.staff:
        print(shown(label("lti.staff", user=person.user_id, name=person.name or "-")))
    for user, why in outcome.unmapped:
        print(shown(label("lti.not_mapped", user=user, why=why)), file=sys.stderr)
    if outcome.stopped:
        print(label("lti.stopped_roster", reason=outcome.stopped), file=sys.stderr)
        return outcome.exit_code
    print(
        label(
            "lti.roster_dry_run" if dry_run else "lti.roster_summary",
            learners=len(outcome.joined) + len(outcome.kept),
            joined=len(outcome.joined),
            left=len(outcome.left),
            staff=len(outcome.staff),
            unmapped=len(outcome.unmapped),
            roster=load(root).LTI_ROSTER,
        )
    )
    return outcome.exit_code


def _term(args, root: Path) -> int:
    """extend, regrade and history."""
    from ..coursedir.ledger import Ledger
    from ..intake.escape import shown
    from ..term import extensions, history, policy
    from . import regrade

    try:
        if args.command == "extend" and args.csv is not None:
            given = (args.attempts, args.late_days, args.closes)
            if args.student or args.assignment or any(value is not None for value in given):
                raise ValueError("extend --csv FILE takes everything it grants from the file, not the command")
            moved = extensions.grant_file(root, args.csv, args.reason)
            print(label("cli.extensions_granted", file=args.csv))
            lines = regrade.lines(moved)
        elif args.command == "extend":
            if not (args.student and args.assignment):
                raise ValueError("extend needs a STUDENT and an ASSIGNMENT (or --csv FILE)")
            wanted = extensions.Wanted(
                args.student, args.assignment, args.until, args.revoke, args.attempts, args.late_days, args.closes
            )
            moved = extensions.grant_all(root, [wanted], args.reason)
            if args.until or args.revoke:
                print(
                    label(
                        "cli.extension_revoked" if args.revoke else "cli.extension_granted",
                        student=args.student,
                        assignment=args.assignment,
                        until=args.until or "",
                    )
                )
            granted = {"attempts": args.attempts, "late_days": args.late_days, "closes": args.closes}
            if any(value is not None for value in granted.values()):
                shown_ = ", ".join(f"{name} {value}" for name, value in granted.items() if value is not None)
                print(label("cli.granted", student=args.student, assignment=args.assignment, granted=shown_))
            lines = regrade.lines(moved)
        elif args.command == "regrade":
            if args.revert is None and not args.assignment:
                raise ValueError("regrade needs the ASSIGNMENT to grade again (only --revert ENTRY goes without one)")
            if args.assignment:
                _names(argparse.Namespace(assignments=[args.assignment]), root)
            if args.preview:
                moved = regrade.preview(root, [args.assignment], args.student, args.workers)
                print(label("cli.regrade_preview", count=len(moved)))
                lines = regrade.lines(moved)
            else:
                entry = (
                    regrade.revert(root, args.revert)
                    if args.revert is not None
                    else regrade.apply(root, [args.assignment], args.student, args.reason, args.workers)
                )
                print(label("cli.regrade_entry", entry=entry.id, action=entry.action, count=len(entry.changes)))
                lines = regrade.lines(list(entry.changes))
        else:
            settings = config.load(root)
            ledger = Ledger(config.database_url(root, settings), settings.COURSE_ID)
            zone = policy.zone(settings)
            lines = []
            for entry in history.entries(ledger):
                moved = [c for c in entry.changes if not args.student or c.student in args.student]
                if moved or not args.student:
                    when = policy.shown(entry.at, zone)
                    lines.append(f"#{entry.id} {when} {entry.action} ({entry.grader}): {entry.reason}")
                    lines += ["  " + line for line in regrade.lines(moved)]
    except (ValueError, FileNotFoundError) as error:
        raise SystemExit(shown(str(error))) from None
    for line in lines:
        print(shown(line))
    if args.command in ("extend", "regrade") and not getattr(args, "preview", False):
        _say_stale(root, moved if args.command == "extend" else list(entry.changes))
    if args.command == "extend":
        _say_kit(root)
    return 0


def _say_kit(root: Path) -> None:
    """After release or extend: whether students need a new kit (`kit.stale`), in one line."""
    from ..authoring import kit

    if (line := kit.stale(root)) is not None:
        print(line)


def _say_stale(root: Path, moved: list) -> None:
    """After grades moved: which feedback pages now show an old grade, and what to run again."""
    from ..coursedir.layout import Course

    course = Course(root)
    changed = sorted({(c.assignment, c.student) for c in moved if c.any})
    pages = [f"{a}/{s}" for a, s in changed if (course.root / "feedback" / s / a).is_dir()]
    if changed:
        shown_pages = ", ".join(pages[:5]) + (" ..." if len(pages) > 5 else "") or "-"
        print(label("cli.stale_pages", count=len(pages), pages=shown_pages))

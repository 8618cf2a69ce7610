"""Course settings: the one place to change the course id, assignments, points, limits and gradebook.

`nbgrader_config.py` and the `autograder` package both read this file, so plain
`nbgrader ...` commands run from the course root honour it. Each setting's comment is its
description in `autograder/coursedir/settings.py`, where every setting is declared.
"""

#: nbgrader's course id.
COURSE_ID = "rnn-chapters"
#: Language of the notebooks, messages, feedback, report and exports: "en" or "zh" (the environment
#: variable COURSE_LANG overrides it for one command).
COURSE_LANG = "en"

#: Assignments in release order (their checks and points are in autograder/assignments/<name>/).
ASSIGNMENTS = ["ch11_rnn_state", "ch12_bptt", "ch12_gates", "ch12_boundaries"]

#: Points that differ from a check's own: {assignment: {grade id: points}}.
POINTS: dict[str, dict[str, float]] = {}

#: Seconds one notebook cell may run during autograding.
CELL_TIMEOUT = 120
#: Seconds one call of a student's function may take inside a check.
CALL_TIMEOUT = 10
#: Memory (address space) of a sandboxed runner, in MB.
MEMORY_LIMIT_MB = 2048
#: Output one cell may keep in the autograded notebook, in KB (the rest is cut, with a note).
OUTPUT_LIMIT_KB = 256
#: Output all the cells of one submission may keep, in KB (past it a cell's outputs are one note).
OUTPUT_TOTAL_KB = 1024
#: Processes a submission may run at once (its own included).
PROCESS_LIMIT = 64
#: Size of a runner's work folder (a tmpfs holding a copy of the assignment's data files), in MB.
WORK_LIMIT_MB = 256
#: Seconds of runner time one submission may take in all, replays of earlier cells after a restart
#: included; past it the remaining cells and checks fail with a message.
SUBMISSION_TIMEOUT = 600
#: Times one submission's runner may be started again after it died (a crash, os._exit, a timeout).
RUNNER_RESTARTS = 8
#: Hidden cases drawn per check (besides the book's public cases).
HIDDEN_CASES = 6
#: After grading, the feedback shows the inputs of a check's first failed hidden case and the
#: student's value; its expected value "never", "after_due" (the student's due date) or "always";
#: "public" shows the book's cases only (TERM may set it per assignment).
FEEDBACK_SHOWS_EXPECTED = "after_due"
#: Time zone of the due dates and extensions (an IANA name such as "Europe/Berlin"); a day late is a
#: calendar day of it.
TIMEZONE = "UTC"
#: The term's rules per assignment: {assignment: {"due": "2027-03-01 23:59", "grace_minutes": 15,
#: "late": {"per_day": 0.1, "cap": 0.5, "late_days": False}, "attempts": 3, "counts": "last" or
#: "best", "feedback": "public", "never", "after_due" or "always"}} (docs/term.md).
TERM: dict[str, dict] = {}
#: Late days each student may spend over the term where an assignment's late policy says
#: "late_days": True.
LATE_DAYS = 0
#: Parallel autograde workers on this machine.
WORKERS = 2
#: Other people have accounts on this host (a hub, a shared server): every command stops where they
#: could read the course's files (docs/instructor.md); False: the host has one user.
SHARED_HOST = True
#: A Unix group whose members (the TAs) may read and grade the course's files; empty: the
#: instructor's account alone.
TA_GROUP = ""
#: Accept a tcp:// Dask scheduler without TLS on a shared host (whoever reaches it runs code as
#: you); a tls:// cluster needs no such setting.
DASK_PLAIN_TCP = False
#: Gradebook database; relative SQLite paths are resolved against the course root.
DATABASE_URL = "sqlite:///gradebook.db"
#: The LMS platform's issuer (LTI 1.3), as it gives it on registering the tool (docs/lms.md); empty:
#: no LMS.
LTI_ISSUER = ""
#: The client id the LMS gave the tool.
LTI_CLIENT_ID = ""
#: The deployment id the LMS gave the tool in this course.
LTI_DEPLOYMENT_ID = ""
#: The LMS's OAuth 2 access token URL.
LTI_TOKEN_URL = ""
#: The LMS's public key set URL (its JWKS).
LTI_KEYSET_URL = ""
#: The line items URL of the course's context in the LMS (Assignment and Grade Services), query
#: string included.
LTI_LINEITEMS_URL = ""
#: The LMS's OpenID Connect authentication request URL, where a launch into the hub is signed;
#: with it, `hub config` logs people in through the LMS (docs/lms.md).
LTI_AUTHORIZE_URL = ""
#: The hub's address as people reach it (https://hub.example.edu/), which `lti key` builds the
#: launch URLs to register from.
HUB_URL = ""
#: The Names and Role Provisioning Services (context memberships) URL of the course in the LMS,
#: which `lti roster` reads the class list from.
LTI_NRPS_URL = ""
#: Which of the LMS's words for a user names them in the course and on the hub: sub, email,
#: lis_person_sourcedid or custom_<field> (autograder/lms/names.py turns it into a login name).
LTI_USERNAME_CLAIM = "email"
#: A CSV file with the columns student_id,lti_user_id mapping each student to its LMS user id,
#: relative to the course root; empty: the LMS user id is the student id.
LTI_ROSTER = ""

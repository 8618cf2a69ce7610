"""nbgrader configuration, taken from course_config.py so that plain nbgrader commands honour it.

Fails closed: traitlets logs any exception a config file raises and carries on with nbgrader's
defaults (stock Execute: student code unsandboxed), so whatever goes wrong here leaves as a
SystemExit, which traitlets lets through: the command stops with one line, before any student
file is read."""

import os
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
try:
    sys.path.insert(0, ROOT)
    from autograder.pipeline import configure

    configure(get_config(), ROOT)  # noqa: F821 (provided by traitlets)
except (ValueError, OSError) as error:  # the course's own errors name the file and the setting, as the CLI prints them
    raise SystemExit(str(error)) from None
except Exception as error:  # noqa: BLE001 - every failure stops the command
    raise SystemExit(f"{os.path.join(ROOT, 'nbgrader_config.py')}: {type(error).__name__}: {error}") from None

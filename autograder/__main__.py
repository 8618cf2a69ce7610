import atexit
import os
import sys

from .commands import warm

status = warm.forwarded(sys.argv[1:])  # the warm process runs it, where there is one
if status is None:
    from .commands.cli import main

    status = main()
# What must happen at exit (the sandbox's zygote and cgroups, temporary folders) is registered with
# atexit and runs now; the rest of the interpreter's teardown, freeing a heap of nbgrader, SymPy and
# SQLAlchemy objects that nothing reads again, took half a second of every command.
atexit._run_exitfuncs()
sys.stdout.flush()
sys.stderr.flush()
os._exit(status)

"""What the budget tests run (tests/sandbox/test_runner_budget.py and, through the command line,
tests/sandbox/test_infrastructure.py): a cell whose processes together pass the runner's
MEMORY_LIMIT_MB, each alone far below it, and the load around it, a grader of another pid namespace
sweeping the cgroup folders this host's graders share."""

from __future__ import annotations

import contextlib
import os
import signal
import time

from rnnkit.jail import limits as cgroups
from rnnkit.jail.process import _die_with_parent
from rnnkit.jail.syscalls import _CLONE_NEWNS, _CLONE_NEWPID, _MS_PRIVATE, _MS_REC, _libc, _mount

#: The runner's MEMORY_LIMIT_MB (above a runner's own address space: RLIMIT_AS is the same number).
LIMIT = 400
#: Processes the cell starts, each holding 40% of LIMIT: together 120% of it, each alone far below.
CHILDREN = 3
#: A child: the kernel's first choice when the cgroup is full (oom_score_adj 1000), it holds its
#: block, says so, and says it still holds it when asked (a child the kernel killed says nothing).
_CHILD = (
    "import sys\nopen('/proc/self/oom_score_adj', 'w').write('1000')\n"
    f"block = b'x' * ({LIMIT * 2 // 5} << 20)\n"
    "sys.stdout.write('held\\n'); sys.stdout.flush(); sys.stdin.readline()\n"
    "sys.stdout.write('holding\\n'); sys.stdout.flush(); sys.stdin.read()\n"
)
#: The cell: CHILDREN children allocate, then each is asked whether it holds its block at that moment.
FAN_OUT = f"""
import os, subprocess, sys
children = [subprocess.Popen([sys.executable, '-I', '-c', {_CHILD!r}], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             bufsize=0) for _ in range({CHILDREN})]
for child in children:
    child.stdout.readline()
for child in children:
    try:
        os.write(child.stdin.fileno(), b'?\\n')
    except OSError:
        pass
holding = sum(child.stdout.readline() == b'holding\\n' for child in children)
for child in children:
    child.stdin.close()
    child.wait()
print('holding', holding, 'of', {CHILDREN})
"""


def said(outputs: list) -> str:
    """What a cell's outputs say: its printed text, else its error."""
    text = "".join(output.get("text", "") for output in outputs if output.get("output_type") == "stream").strip()
    return text or "; ".join(f"{output.get('ename')}: {output.get('evalue')}" for output in outputs)


def stopped(text: str) -> bool:
    """Whether the fan-out was stopped: fewer than CHILDREN children held their blocks at once."""
    return text.startswith("holding ") and int(text.split()[1]) < CHILDREN


@contextlib.contextmanager
def foreign_sweeps():
    """While the block runs, a process in a pid namespace of its own with its own /proc (a grader in
    a container that shares this host's cgroups) starts over and over as any grader does,
    sweeping on its way the cgroup folders of owners that have ended (as it judges them)."""
    pid = os.fork()
    if pid == 0:
        try:
            if _libc.unshare(_CLONE_NEWPID | _CLONE_NEWNS) == 0:
                outer = os.getpid()
                inner = os.fork()
                if inner == 0:
                    _die_with_parent(outer)
                    _mount(None, "/", None, _MS_REC | _MS_PRIVATE, None, "making / private")
                    _mount("proc", "/proc", "proc", 0, None, "mount proc")
                    deadline = time.monotonic() + 600  # a bound, should the test that started it be killed
                    while time.monotonic() < deadline:
                        made = cgroups._cgroup_setup()
                        if made is not None:
                            cgroups._drop_cgroups(made)
                    os._exit(0)
                os.waitpid(inner, 0)
        finally:
            os._exit(0)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)

"""rnnkit.cells: notebook cells run in-process with IPython semantics, outputs as nbformat v4 dicts."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "kit"))

import nbformat  # noqa: E402
import pytest  # noqa: E402
from matplotlib._pylab_helpers import Gcf  # noqa: E402

from rnnkit import output_limits  # noqa: E402
from rnnkit.cells import CellRunner  # noqa: E402
from rnnkit.output_limits import MAX_OUTPUTS  # noqa: E402
from rnnkit.shell_hooks import MAX_TRACEBACK_FRAMES  # noqa: E402

KIT = Path(__file__).resolve().parents[2] / "kit"

# IPython warns "To exit: use 'exit', 'quit', or Ctrl-D." after a SystemExit, as in Jupyter.
pytestmark = pytest.mark.filterwarnings("ignore:To exit:UserWarning")


@pytest.fixture(scope="module")
def runner() -> CellRunner:
    return CellRunner()


def of_type(outputs: list[dict], output_type: str) -> list[dict]:
    return [output for output in outputs if output["output_type"] == output_type]


def stdout(outputs: list[dict]) -> str:
    return "".join(o["text"] for o in outputs if o["output_type"] == "stream" and o["name"] == "stdout")


def total_size(outputs: list[dict]) -> int:
    size = 0
    for output in outputs:
        if output["output_type"] == "stream":
            size += len(output["text"].encode())
        elif output["output_type"] == "error":
            size += len(output["ename"]) + len(output["evalue"]) + sum(len(line) for line in output["traceback"])
        else:
            size += sum(len(v) if isinstance(v, str) else len(json.dumps(v)) for v in output["data"].values())
    return size


def pngs(outputs: list[dict]) -> list[bytes]:
    return [base64.b64decode(o["data"]["image/png"]) for o in outputs if "image/png" in o.get("data", {})]


def test_print_then_last_expression(runner):
    outputs = runner.run("print('hello')\n1 + 2")
    assert outputs[0] == {"output_type": "stream", "name": "stdout", "text": "hello\n"}
    result = outputs[1]
    assert result["output_type"] == "execute_result"
    assert result["data"]["text/plain"] == "3"
    assert result["metadata"] == {}
    assert result["execution_count"] == runner.execution_count
    assert len(outputs) == 2


def test_execution_count_increments_per_cell(runner):
    before = runner.execution_count
    runner.run("a_value = 1")
    outputs = runner.run("a_value")
    assert runner.execution_count == before + 2
    assert outputs[0]["execution_count"] == before + 2
    assert runner.run("   \n") == []  # an empty cell is not executed, as in Jupyter
    assert runner.execution_count == before + 2


def test_consecutive_writes_to_one_stream_are_merged(runner):
    outputs = runner.run("import sys\nprint('a')\nprint('b')\nprint('c', file=sys.stderr)\nprint('d')")
    assert outputs == [
        {"output_type": "stream", "name": "stdout", "text": "a\nb\n"},
        {"output_type": "stream", "name": "stderr", "text": "c\n"},
        {"output_type": "stream", "name": "stdout", "text": "d\n"},
    ]


def test_trailing_semicolon_suppresses_the_result(runner):
    assert runner.run("1 + 2;") == []
    assert runner.run("x_semi = 4\nx_semi;  # a comment") == []
    assert of_type(runner.run("x_semi"), "execute_result")[0]["data"]["text/plain"] == "4"


def test_display_of_rich_objects(runner):
    outputs = runner.run(
        "from IPython.display import HTML, display\n"
        "display(HTML('<b>bold</b>'))\n"
        "display({'a': 1})\n"
        "class Rich:\n"
        "    def _repr_html_(self):\n"
        "        return '<i>rich</i>'\n"
        "    def __repr__(self):\n"
        "        return 'Rich()'\n"
        "Rich()"
    )
    assert [o["output_type"] for o in outputs] == ["display_data", "display_data", "execute_result"]
    assert outputs[0]["data"]["text/html"] == "<b>bold</b>"
    assert "text/plain" in outputs[0]["data"]
    assert outputs[0]["metadata"] == {}
    assert outputs[1]["data"] == {"text/plain": "{'a': 1}"}
    assert outputs[2]["data"] == {"text/plain": "Rich()", "text/html": "<i>rich</i>"}


def test_ipython_display_module_and_builtin_display(runner):
    outputs = runner.run("import IPython.display\nIPython.display.display({'b': 2})\ndisplay([1, 2])")
    assert [o["data"]["text/plain"] for o in outputs] == ["{'b': 2}", "[1, 2]"]


def test_plot_with_show_gives_a_png(runner):
    outputs = runner.run("import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [3, 1, 2])\nplt.show()")
    shown = of_type(outputs, "display_data")
    assert len(shown) == 1
    assert shown[0]["data"]["text/plain"].startswith("<Figure size")
    assert base64.b64decode(shown[0]["data"]["image/png"]).startswith(b"\x89PNG")
    assert not Gcf.get_all_fig_managers()


def test_figure_left_open_is_shown_once_and_closed(runner):
    outputs = runner.run("import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([0, 1], [1, 0]);")
    assert len(pngs(outputs)) == 1
    assert pngs(outputs)[0].startswith(b"\x89PNG")
    assert not Gcf.get_all_fig_managers()
    assert runner.run("1") == [
        {
            "output_type": "execute_result",
            "data": {"text/plain": "1"},
            "metadata": {},
            "execution_count": runner.execution_count,
        }
    ]


def test_figures_do_not_pile_up_across_cells(runner):
    for _ in range(3):
        runner.run("import matplotlib.pyplot as plt\nplt.ioff()\nplt.figure()\nplt.plot([1, 2])\nplt.ion()")
        assert not Gcf.get_all_fig_managers()


def test_exception_gives_an_error_output(runner):
    outputs = runner.run("print('before')\nvalue = 1 / 0\nprint('after')")
    assert stdout(outputs) == "before\n"
    error = outputs[-1]
    assert error["output_type"] == "error"
    assert error["ename"] == "ZeroDivisionError"
    assert error["evalue"] == "division by zero"
    text = "\n".join(error["traceback"])
    assert "value = 1 / 0" in text
    assert "line 2" in text
    assert "\x1b[" not in text


def test_syntax_error_gives_an_error_output(runner):
    outputs = runner.run("def broken(:\n    pass")
    assert [o["ename"] for o in of_type(outputs, "error")] == ["SyntaxError"]


def test_line_and_cell_magics(runner):
    outputs = runner.run("%time sum(range(10))")
    assert "Wall time" in stdout(outputs)
    assert of_type(outputs, "execute_result")[0]["data"]["text/plain"] == "45"
    assert runner.run("%%capture captured\nprint('quiet')\ndisplay({'c': 3})") == []
    assert runner.run("captured.stdout")[0]["data"]["text/plain"] == "'quiet\\n'"
    assert runner.run("captured.outputs[0].data")[0]["data"]["text/plain"] == "{'text/plain': \"{'c': 3}\"}"


@pytest.mark.parametrize(
    "source, ename",
    [
        ("raise SystemExit(3)", "SystemExit"),
        ("import sys\nsys.exit()", "SystemExit"),
        ("raise KeyboardInterrupt", "KeyboardInterrupt"),
    ],
)
def test_exits_and_interrupts_become_errors(runner, source, ename):
    outputs = runner.run(source)
    assert [o["ename"] for o in of_type(outputs, "error")] == [ename]
    assert stdout(runner.run("print('still here')")) == "still here\n"


def test_exit_in_a_cell_does_not_stop_the_runner(runner):
    runner.run("exit()")
    assert stdout(runner.run("print('alive')")) == "alive\n"


def test_system_exit_outside_the_user_code_is_caught(runner):
    runner.run("def _boom():\n    raise SystemExit(9)\nget_ipython().events.register('post_execute', _boom)")
    try:
        outputs = runner.run("print('x')")
    finally:
        runner.shell.events.unregister("post_execute", runner.namespace["_boom"])
    assert stdout(outputs) == "x\n"
    assert [o["ename"] for o in of_type(outputs, "error")] == ["SystemExit"]


def test_namespace_persists_between_cells(runner):
    runner.run("def double(n):\n    return 2 * n\nstate = [1]")
    outputs = runner.run("state.append(double(21))\nstate")
    assert outputs[0]["data"]["text/plain"] == "[1, 42]"
    assert runner.namespace["double"](4) == 8


def test_printing_60_mb_is_cut_quickly(runner, monkeypatch):
    """Once a cell's text is cut, its writes are dropped as they come, before any bookkeeping: of 1.2
    million writes, only those up to the limit reach the cell's outputs (`_Outputs.stream`)."""
    limit = runner.output_limit_bytes
    handed = []  # the length of each write that reached the cell's outputs
    stream = output_limits._Outputs.stream

    def counted(self, name, text):
        handed.append(len(text))
        return stream(self, name, text)

    monkeypatch.setattr(output_limits._Outputs, "stream", counted)
    outputs = runner.run("for i in range(600_000):\n    print('x' * 99)")
    # each print is two writes (its text, its newline) of 100 bytes in all; the first past the limit is the last
    assert len(handed) <= 2 * (limit // 100 + 1) and sum(handed) <= limit + 100
    assert total_size(outputs) <= limit + 1024
    assert outputs[-1]["output_type"] == "stream"
    assert outputs[-1]["text"].endswith(f"[output truncated: this cell printed more than {limit // 1024} KB]\n")
    # one write of 60 MB, too: it reaches the outputs once, and the newline after it does not
    handed.clear()
    outputs = runner.run("print('y' * 60_000_000)")
    assert handed == [60_000_000]
    assert total_size(outputs) <= limit + 1024
    assert "[output truncated" in outputs[-1]["text"]
    # the next cell has its whole budget again
    assert runner.run("print('small')") == [{"output_type": "stream", "name": "stdout", "text": "small\n"}]


def test_error_after_the_budget_is_spent_is_still_reported(runner):
    outputs = runner.run("print('z' * 10_000_000)\n1 / 0")
    assert [o["ename"] for o in of_type(outputs, "error")] == ["ZeroDivisionError"]
    assert total_size(outputs) <= runner.output_limit_bytes + 5 * 1024
    assert "[output truncated" in outputs[-1]["text"]


def test_number_of_outputs_is_capped(runner):
    outputs = runner.run(f"for i in range({MAX_OUTPUTS + 500}):\n    display(i)")
    assert len(outputs) == MAX_OUTPUTS + 1
    assert "[output truncated" in outputs[-1]["text"]


def test_large_display_keeps_its_plain_text(runner):
    outputs = runner.run("from IPython.display import HTML\nHTML('<p>' + 'h' * 400_000 + '</p>')")
    assert outputs[0]["data"] == {"text/plain": "<IPython.core.display.HTML object>"}
    assert "[output truncated" in outputs[-1]["text"]


def test_replacing_stdout_in_a_cell_does_not_break_the_next(runner):
    before = sys.stdout, sys.stderr
    assert runner.run("import io, sys\nsys.stdout = io.StringIO()\nsys.stderr = None\nprint('lost')") == []
    assert (sys.stdout, sys.stderr) == before
    outputs = runner.run("import sys\nprint('back')\nprint('err', file=sys.stderr)")
    assert outputs == [
        {"output_type": "stream", "name": "stdout", "text": "back\n"},
        {"output_type": "stream", "name": "stderr", "text": "err\n"},
    ]


def test_closing_stdout_or_replacing_print_and_display(runner):
    runner.run("import sys\nsys.stdout.close()")
    assert stdout(runner.run("print('open')")) == "open\n"
    try:
        runner.run(
            "import builtins\n_saved_print = builtins.print\nbuiltins.print = lambda *a, **k: None\ndisplay = None"
        )
        outputs = runner.run("import sys\nprint('nothing')\nsys.stdout.write('written\\n')\n7")
        assert stdout(outputs) == "written\n"
        assert of_type(outputs, "execute_result")[0]["data"]["text/plain"] == "7"
    finally:
        runner.run("builtins.print = _saved_print\ndel display")
    assert runner.run("display('d')")[0]["data"]["text/plain"] == "'d'"


def test_a_failing_rich_repr_does_not_crash(runner):
    outputs = runner.run(
        "class Bad:\n"
        "    def _repr_html_(self):\n"
        "        raise ValueError('no html')\n"
        "    def __repr__(self):\n"
        "        return 'Bad()'\n"
        "display(Bad())\n"
        "Bad()"
    )
    assert all(o["output_type"] in ("error", "stream", "display_data", "execute_result") for o in outputs)
    assert of_type(outputs, "execute_result")[0]["data"]["text/plain"] == "Bad()"
    assert stdout(runner.run("print('fine')")) == "fine\n"


def test_input_fails_instead_of_waiting(runner):
    outputs = runner.run("input('name? ')")
    assert [o["ename"] for o in of_type(outputs, "error")] == ["StdinNotImplementedError"]


def test_clear_output_and_display_updates(runner):
    outputs = runner.run(
        "from IPython.display import clear_output\n"
        "for i in range(3):\n"
        "    clear_output(wait=True)\n"
        "    print(i)\n"
        "handle = display('first', display_id=True)\n"
        "handle.update('second')"
    )
    assert outputs == [
        {"output_type": "stream", "name": "stdout", "text": "2\n"},
        {"output_type": "display_data", "data": {"text/plain": "'second'"}, "metadata": {}},
    ]


def test_outputs_make_a_valid_notebook(runner):
    sources = [
        "print('a')\n2",
        "import matplotlib.pyplot as plt\nplt.plot([1, 2]);",
        "display({'x': 1})\nfrom IPython.display import JSON\nJSON({'k': [1, 2]})",
        "1 / 0",
        "print('\\ud800 lone surrogate')",
    ]
    notebook = nbformat.v4.new_notebook()
    for source in sources:
        cell = nbformat.v4.new_code_cell(source)
        cell.outputs = [nbformat.from_dict(output) for output in runner.run(source)]
        cell.execution_count = runner.execution_count
        notebook.cells.append(cell)
    nbformat.validate(notebook)
    nbformat.writes(notebook).encode("utf-8")


#: Run in a fresh process: what building the first CellRunner did, from the audit events it raised
#: (`sys.addaudithook`), as JSON.
_CONSTRUCTION = """
import json, os, sys
sys.path.insert(0, KIT)
from rnnkit.cells import CellRunner
seen, watching = [], [False]
sys.addaudithook(lambda event, args: seen.append((event, args)) if watching[0] else None)
watching[0] = True
runner = CellRunner()
watching[0] = False
libraries = tuple({sys.prefix, sys.base_prefix, sys.exec_prefix, KIT})
writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
opened = [(os.fsdecode(args[0]) if isinstance(args[0], (str, bytes)) else str(args[0]), args[2] or 0)
          for event, args in seen if event == "open"]
processes = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty")
print(json.dumps({
    "written": [path for path, flags in opened if flags & writing],
    "read_outside_the_libraries": [path for path, flags in opened if not path.startswith(libraries)],
    "folders_made": [os.fsdecode(args[0]) for event, args in seen if event == "os.mkdir"],
    "databases": [str(args[0]) for event, args in seen if event == "sqlite3.connect"],
    "processes": [event for event, args in seen if event in processes],
}))
runner.run('kept = 1')
again = CellRunner()
print('kept' in again.namespace, again.execution_count)
"""


def test_fresh_process_construction_is_cheap_and_writes_no_profile(tmp_path):
    """Building the shell in a fresh process loads no IPython profile: it writes nothing, makes no
    folder, opens no history database, starts no process, and reads no file but the libraries'
    own (no configuration, startup file or history)."""
    script = f"KIT = {str(KIT)!r}\n" + _CONSTRUCTION
    env = dict(os.environ, HOME=str(tmp_path), TMPDIR=str(tmp_path), IPYTHONDIR="")
    env.pop("IPYTHONDIR")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    built, again = done.stdout.splitlines()
    assert json.loads(built) == {
        "written": [],
        "read_outside_the_libraries": [],
        "folders_made": [],
        "databases": [],
        "processes": [],
    }
    kept, count = again.split()
    assert (kept, count) == ("False", "0")
    assert not (tmp_path / ".ipython").exists()
    assert not list(tmp_path.glob("rnnkit-ipython*"))


def test_runaway_recursion_is_reported_with_its_middle_frames_left_out(runner, monkeypatch):
    """About 3000 frames deep, the traceback keeps MAX_TRACEBACK_FRAMES of them, so it is formatted
    (and read) in moments rather than minutes: IPython's formatter, slow for each frame, is handed
    that many frames, once."""
    formatter = runner.shell.InteractiveTB
    structured = formatter.structured_traceback
    handed = []  # the number of frames of each traceback handed to the formatter

    def counted(etype, evalue, etb=None, *args, **kwargs):
        frames, node = 0, etb
        while node is not None:
            frames, node = frames + 1, node.tb_next
        handed.append(frames)
        return structured(etype, evalue, etb, *args, **kwargs)

    monkeypatch.setattr(formatter, "structured_traceback", counted)
    outputs = runner.run("def deeper(n):\n    return deeper(n + 1)\ndeeper(0)")
    assert len(handed) == 1 and 1 <= handed[0] <= MAX_TRACEBACK_FRAMES, handed
    error = of_type(outputs, "error")[0]
    assert error["ename"] == "RecursionError"
    traceback = "\n".join(error["traceback"])
    assert 1 <= traceback.count("return deeper(n + 1)") <= MAX_TRACEBACK_FRAMES

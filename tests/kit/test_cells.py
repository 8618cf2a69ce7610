"""rnnkit.cells: notebook cells run in-process with IPython semantics, outputs as nbformat v4 dicts."""
from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "kit"))

import nbformat  # noqa: E402
import pytest  # noqa: E402
from matplotlib._pylab_helpers import Gcf  # noqa: E402

from rnnkit.cells import MAX_OUTPUTS, MAX_TRACEBACK_FRAMES, CellRunner  # noqa: E402

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
        {"output_type": "execute_result", "data": {"text/plain": "1"}, "metadata": {}, "execution_count": runner.execution_count}
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


def test_printing_60_mb_is_cut_quickly(runner):
    limit = runner.output_limit_bytes
    started = time.perf_counter()
    outputs = runner.run("for i in range(600_000):\n    print('x' * 99)")
    elapsed = time.perf_counter() - started
    assert elapsed < 5
    assert total_size(outputs) <= limit + 1024
    assert outputs[-1]["output_type"] == "stream"
    assert outputs[-1]["text"].endswith(f"[output truncated: this cell printed more than {limit // 1024} KB]\n")
    # one write of 60 MB, too
    outputs = runner.run("print('y' * 60_000_000)")
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
    outputs = runner.run(
        "from IPython.display import HTML\nHTML('<p>' + 'h' * 400_000 + '</p>')"
    )
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
        runner.run("import builtins\n_saved_print = builtins.print\nbuiltins.print = lambda *a, **k: None\ndisplay = None")
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


def test_fresh_process_construction_is_cheap_and_writes_no_profile(tmp_path):
    script = (
        "import sys, time\n"
        f"sys.path.insert(0, {str(KIT)!r})\n"
        "from rnnkit.cells import CellRunner\n"
        "started = time.perf_counter()\n"
        "runner = CellRunner()\n"
        "built = time.perf_counter() - started\n"
        "runner.run('kept = 1')\n"
        "again = CellRunner()\n"
        "print(built, 'kept' in again.namespace, again.execution_count)\n"
    )
    env = dict(os.environ, HOME=str(tmp_path), TMPDIR=str(tmp_path), IPYTHONDIR="")
    env.pop("IPYTHONDIR")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    built, kept, count = done.stdout.split()
    assert float(built) < 1.0
    assert (kept, count) == ("False", "0")
    assert not (tmp_path / ".ipython").exists()
    assert not list(tmp_path.glob("rnnkit-ipython*"))


def test_runaway_recursion_is_reported_with_its_middle_frames_left_out(runner):
    """About 3000 frames deep, the traceback keeps MAX_TRACEBACK_FRAMES of them, so it is formatted
    (and read) in moments rather than minutes; the time bound only guards against a hang."""
    started = time.perf_counter()
    outputs = runner.run("def deeper(n):\n    return deeper(n + 1)\ndeeper(0)")
    assert time.perf_counter() - started < 30
    error = of_type(outputs, "error")[0]
    assert error["ename"] == "RecursionError"
    traceback = "\n".join(error["traceback"])
    assert 1 <= traceback.count("return deeper(n + 1)") <= MAX_TRACEBACK_FRAMES

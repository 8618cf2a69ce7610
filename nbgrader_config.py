"""nbgrader configuration, taken from course_config.py so that plain nbgrader commands honour it."""
import os
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, ROOT)
from autograder.config import load  # noqa: E402
from autograder.pipeline import nbgrader_settings  # noqa: E402

c = get_config()  # noqa: F821 (provided by traitlets)
nbgrader_settings(c, ROOT, load(ROOT))

"""Autograder and course package for the recurrent-network chapters (11 and 12)."""

import os
import sys

# What the course makes is the instructor's: every file and folder of a process that imports this
# package is 0600/0700 (`autograder.coursedir.privacy`; a TAs' group is let in per course there).
os.umask(0o077)

# jsonschema (through nbformat) registers its "iri" format checker only where rfc3987_syntax
# imports, and that import builds about forty grammars (1.2-1.4 s of the start-up of every process
# that imports nbformat: the CLI, its workers, the tests). No schema the course validates (nbformat's,
# nbgrader's cell metadata) has an "iri" format: a process that imports this package first leaves it
# out. Set before any import of jsonschema.
sys.modules.setdefault("rfc3987_syntax", None)

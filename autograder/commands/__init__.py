"""The instructor's commands: `python -m autograder <command>`.

* `cli`: the command line, run from the course root.
* `course`: the operations (release, autograde, feedback) it calls.
* `regrade`: regrades that explain themselves.
* `warm`: the warm process that the next command lines reuse.
"""

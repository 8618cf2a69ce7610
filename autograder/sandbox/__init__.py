"""Where a student's code runs: sandboxed runners, never the grader's process.

* `zygote`: the warm parent of the runners (one per grader process), which forks each runner into
  its jail (`rnnkit.jail`) within its budget.
* `session`: one submission's session: its runner, cells run and functions called over pipes,
  a runner that died started again with the earlier cells replayed.
* `replies`: a runner's replies, untrusted until decoded and bounded.
* `timings`: where a submission's grading time goes, by phase, for the benchmark.
"""

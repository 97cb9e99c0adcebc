"""Benchmarks, each run as ``python -m nesyworld.experiments.benchmarks.<name>`` and each speed
reported beside a reference measured in the same run: `speed` (the envs, reset, planning),
`training` (learner throughput), `env_throughput`, `planning` (derivation and planner calls),
`executor` and `table2_walltime` (what the paper's grid would cost here)."""

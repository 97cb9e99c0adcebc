"""The recovery experiment: the hybrid agent against novelties that break its plan,
by seed (`python -m nesyworld.experiments.recovery.run`)."""


"""Probes of a trained policy's behaviour after a novelty (transfer_probe.py)."""

from nesyworld.experiments.probe.transfer_probe import ProbeResult, probe_transfer

__all__ = ["ProbeResult", "probe_transfer"]

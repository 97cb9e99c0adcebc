"""Probes of a trained policy after a novelty: what it does (transfer_probe.py), what its
carried critic steers towards (critic_probe.py), how many obstacles stand before a target,
map by map (obstacles.py), which setting decides whether it adapts (ablation.py), and how
often it adapts over many results files (pooled.py)."""

from nesyworld.experiments.probe.transfer_probe import ProbeResult, probe_transfer

__all__ = ["ProbeResult", "probe_transfer"]

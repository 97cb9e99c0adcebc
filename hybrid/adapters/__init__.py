"""Hosts for environments that are not nesyworld's own: the adapters that let the planning
agent (and what is built on it) run on them, found by `host_for` (hosts.py)."""

from __future__ import annotations

from nesyworld.hybrid.adapters.hosts import host_for, register_host

__all__ = ["host_for", "register_host"]

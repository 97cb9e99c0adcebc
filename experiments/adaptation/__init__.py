"""The adaptation study: the hybrid agent against novelties that break its plan, by seed
(`nesyworld adaptation`, or `python -m nesyworld.experiments.adaptation.run`)."""


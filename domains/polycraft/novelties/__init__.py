"""The paper's twelve pogostick novelties (table 3) and one for each SAIL-ON level they leave
uncovered, as YAML files, plus the few registered classes the new behaviours need
(`plugins.py`, declared as entry points so novelty files can name them)."""

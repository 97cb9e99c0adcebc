"""networkx views of a task (the type hierarchy and the item/recipe graph, building.py) and
a drawing of the recipe graph (drawing.py)."""

from nesyworld.symbolic.graphs.building import (
    PROCESS_KINDS,
    SpecLike,
    layers,
    recipe_graph,
    type_graph,
)
from nesyworld.symbolic.graphs.drawing import draw_recipe_graph

__all__ = ["PROCESS_KINDS", "SpecLike", "draw_recipe_graph", "layers", "recipe_graph",
           "type_graph"]

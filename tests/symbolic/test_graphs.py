"""The networkx views: type hierarchy, recipe graph, and the recipe drawing."""

from __future__ import annotations

from pathlib import Path

import matplotlib.image
import networkx as nx
import pytest

from nesyworld.symbolic.derivation.derive import derive
from nesyworld.symbolic.graphs import (
    PROCESS_KINDS,
    draw_recipe_graph,
    layers,
    recipe_graph,
    type_graph,
)


@pytest.fixture(scope="module")
def pogo() -> nx.DiGraph:
    return recipe_graph("pogostick")


def test_type_graph_keeps_every_parent() -> None:
    g = type_graph("pogostick")
    assert set(g.successors("oak_log")) == {"log", "hand_breakable"}
    assert (
        g.edges["oak_log", "log"]["primary"] and not g.edges["oak_log", "hand_breakable"]["primary"]
    )
    assert g.nodes["oak_log"]["kind"] == "concrete"
    assert g.nodes["hand_breakable"]["kind"] == "category"
    assert nx.is_directed_acyclic_graph(g)
    assert all(nx.has_path(g, n, "physobj") for n in g if n != "physobj")


def test_type_graph_from_a_derivation_is_the_same() -> None:
    a, b = type_graph(derive("sandwich")), type_graph("sandwich")
    assert set(a.edges) == set(b.edges) and dict(a.nodes(data="kind")) == dict(b.nodes(data="kind"))
    assert set(a.successors("tomato_plant")) == {"plant", "cuttable"}


def test_recipe_graph_is_bipartite_with_counts(pogo: nx.DiGraph) -> None:
    side = nx.get_node_attributes(pogo, "bipartite")
    assert all(side[u] != side[v] for u, v in pogo.edges)
    assert {a["kind"] for n, a in pogo.nodes(data=True) if side[n] == 1} <= set(PROCESS_KINDS)
    assert pogo.edges["recipe:planks", "planks"]["count"] == 4
    assert pogo.edges["oak_log", "recipe:planks"] == {"count": 1, "role": "input"}
    assert pogo.nodes["trade:block_of_titanium_1"]["trader"] == "trader"
    assert pogo.nodes["recipe:pogo_stick"]["station"] == "crafting_table"
    assert pogo.nodes["break:diamond_ore"]["tool"] == "iron_pickaxe"
    assert pogo.edges["break:diamond_ore", "diamond"]["count"] == 9
    assert pogo.nodes["collect:oak_log"]["tool"] == "tree_tap"
    assert pogo.nodes["pogo_stick"]["goal"] and pogo.graph["goal"] == {"pogo_stick": 1}


def test_recipe_graph_leads_from_logs_to_the_goal(pogo: nx.DiGraph) -> None:
    assert nx.has_path(pogo, "oak_log", "pogo_stick")
    assert nx.has_path(pogo, "block_of_platinum (map)", "pogo_stick")  # via titanium
    depth = layers(pogo)
    assert depth["oak_log (map)"] == 0 and depth["pogo_stick"] == max(
        depth[n] for n in nx.ancestors(pogo, "pogo_stick") | {"pogo_stick"}
    )
    assert all(depth[n] % 2 == 1 for n, a in pogo.nodes(data=True) if a["bipartite"] == 1)


def test_properties_are_prerequisites_in_the_kitchen() -> None:
    g = recipe_graph("sandwich")
    assert g.nodes["lit(oven)"]["kind"] == "property" and not g.nodes["lit(oven)"]["raw"]
    assert nx.has_path(g, "use:oven", "recipe:bread")
    assert g.edges["lit(oven)", "recipe:bread"]["role"] == "condition"
    assert nx.has_path(g, "coin_pouch", "sandwich") and nx.has_path(g, "knife", "sandwich")
    depth = layers(g)
    assert depth["recipe:bread"] > depth["use:oven"]


@pytest.mark.parametrize("name", ["pogostick", "sandwich"])
def test_drawing_writes_a_real_png(name: str, tmp_path: Path) -> None:
    out = draw_recipe_graph(name, tmp_path / f"{name}.png")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    image = matplotlib.image.imread(out)
    assert image.shape[1] > 800 and image.shape[0] > 300
    assert image[..., :3].std() > 0.05  # not a blank canvas

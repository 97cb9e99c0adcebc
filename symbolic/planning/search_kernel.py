"""The compiled search over a ground STRIPS task: best-first search on g + w * h_FF.

Why compiled and why this search: a Fast Downward call costs about a third of a second, two
thirds of it an A* with h_max that expands about 11,000 states on the pogostick task, and a
recovery asks hundreds of questions. h_FF (the length of a relaxed plan, deletes ignored) is far
better informed on crafting tasks, where a goal needs many independent ingredients; with
f = g + h_FF the search expands a few dozen states there, and its plans had the optimal length
on 15 of the 16 shipped pogostick tasks (one longer by one operator; the planning benchmark,
experiments/benchmarks/planning.py, prints the comparison). h_FF is inadmissible, so no plan is
proven optimal. It is infinite only when the goal is unreachable with deletes and negative
conditions ignored, so pruning on it never loses a plan, and an exhausted search is a proof of
"no plan".

Everything here is numbers in flat arrays (CSR: `ptr[i]:ptr[i+1]` slices `items`), built by
symbolic/planning/in_process.py; the search is bounded by a node limit, so it cannot run away.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nesyworld.world.kernels.jit import HAVE_NUMBA, njit

INF = np.int64(1) << np.int64(40)
FOUND, NO_PLAN, LIMIT = 0, 1, 2


def state_table() -> Any:
    """The search's table from state hashes to nodes: numba's typed dict when compiled (made
    here, in Python, so the kernel needs no typed-container code of its own), else a dict."""
    if not HAVE_NUMBA:
        return {}
    from numba import types
    from numba.typed import Dict

    return Dict.empty(key_type=types.int64, value_type=types.int64)


@njit
def _holds(state: np.ndarray, ptr: np.ndarray, items: np.ndarray, k: int, value: int) -> bool:
    for j in range(ptr[k], ptr[k + 1]):  # noqa: SIM110 (numba compiles no generator in all())
        if state[items[j]] != value:
            return False
    return True


@njit
def relaxed_costs(state: np.ndarray, rule_pre_ptr: np.ndarray, rule_pre: np.ndarray,
                  rule_add_ptr: np.ndarray, rule_add: np.ndarray, cost: np.ndarray,
                  supporter: np.ndarray) -> None:
    """h_add's cost of every atom (INF: unreachable ignoring deletes and negative conditions)
    and the rule that reaches it most cheaply."""
    for a in range(state.shape[0]):
        cost[a] = 0 if state[a] else INF
        supporter[a] = -1
    changed = True
    while changed:
        changed = False
        for r in range(rule_pre_ptr.shape[0] - 1):
            c = np.int64(1)
            for j in range(rule_pre_ptr[r], rule_pre_ptr[r + 1]):
                c += cost[rule_pre[j]]
            if c >= INF:
                continue
            for j in range(rule_add_ptr[r], rule_add_ptr[r + 1]):
                atom = rule_add[j]
                if c < cost[atom]:
                    cost[atom] = c
                    supporter[atom] = r
                    changed = True


@njit
def h_ff(state: np.ndarray, rule_pre_ptr: np.ndarray, rule_pre: np.ndarray,
         rule_add_ptr: np.ndarray, rule_add: np.ndarray, rule_action: np.ndarray,
         goal: np.ndarray, cost: np.ndarray, supporter: np.ndarray, marked: np.ndarray,
         used: np.ndarray) -> np.int64:
    """The number of distinct actions in a relaxed plan built from h_add's cheapest
    supporters (an action whose several conditional effects the plan needs counts once);
    INF when a goal atom is unreachable."""
    relaxed_costs(state, rule_pre_ptr, rule_pre, rule_add_ptr, rule_add, cost, supporter)
    for g in goal:
        if cost[g] >= INF:
            return INF
    marked[:] = 0
    used[:] = 0
    stack = list(goal)
    count = np.int64(0)
    while len(stack) > 0:
        atom = stack.pop()
        if marked[atom] or state[atom]:
            continue
        marked[atom] = 1
        r = supporter[atom]
        if not used[rule_action[r]]:
            used[rule_action[r]] = 1
            count += 1
        for j in range(rule_pre_ptr[r], rule_pre_ptr[r + 1]):
            stack.append(rule_pre[j])
    return count


@njit
def _push(heap: np.ndarray, size: int, f: np.int64, h: np.int64, node: int) -> np.ndarray:
    if size == heap.shape[0]:
        bigger = np.empty((heap.shape[0] * 2, 3), np.int64)
        bigger[:size] = heap[:size]
        heap = bigger
    heap[size, 0], heap[size, 1], heap[size, 2] = f, h, node
    i = size
    while i > 0:
        parent = (i - 1) // 2
        if (heap[parent, 0], heap[parent, 1], heap[parent, 2]) <= (heap[i, 0], heap[i, 1],
                                                                  heap[i, 2]):
            break
        for c in range(3):
            heap[parent, c], heap[i, c] = heap[i, c], heap[parent, c]
        i = parent
    return heap


@njit
def _pop(heap: np.ndarray, size: int) -> int:
    node = heap[0, 2]
    size -= 1
    for c in range(3):
        heap[0, c] = heap[size, c]
    i = 0
    while True:
        left, right, least = 2 * i + 1, 2 * i + 2, i
        if left < size and (heap[left, 0], heap[left, 1], heap[left, 2]) < (
                heap[least, 0], heap[least, 1], heap[least, 2]):
            least = left
        if right < size and (heap[right, 0], heap[right, 1], heap[right, 2]) < (
                heap[least, 0], heap[least, 1], heap[least, 2]):
            least = right
        if least == i:
            return node
        for c in range(3):
            heap[least, c], heap[i, c] = heap[i, c], heap[least, c]
        i = least


@njit
def search(init: np.ndarray, goal_true: np.ndarray, goal_false: np.ndarray,
           pre_ptr: np.ndarray, pre: np.ndarray, npre_ptr: np.ndarray, npre: np.ndarray,
           add_ptr: np.ndarray, add: np.ndarray, del_ptr: np.ndarray, dele: np.ndarray,
           ce_ptr: np.ndarray, ce_pos_ptr: np.ndarray, ce_pos: np.ndarray,
           ce_neg_ptr: np.ndarray, ce_neg: np.ndarray, ce_atom: np.ndarray,
           ce_value: np.ndarray, rule_pre_ptr: np.ndarray, rule_pre: np.ndarray,
           rule_add_ptr: np.ndarray, rule_add: np.ndarray, rule_action: np.ndarray,
           zobrist: np.ndarray, weight: int, max_nodes: int, seen: Any
           ) -> tuple[int, np.ndarray, int]:
    """(status, plan as action numbers, nodes generated); `seen` is an empty `state_table()`."""
    n_atoms = init.shape[0]
    n_actions = pre_ptr.shape[0] - 1
    cost = np.empty(n_atoms, np.int64)
    supporter = np.empty(n_atoms, np.int64)
    marked = np.zeros(n_atoms, np.uint8)
    used = np.zeros(n_actions, np.uint8)
    capacity = 1024
    states = np.empty((capacity, n_atoms), np.uint8)
    parent = np.empty(capacity, np.int64)
    via = np.empty(capacity, np.int64)
    depth = np.empty(capacity, np.int64)
    chain = np.empty(capacity, np.int64)
    heap = np.empty((1024, 3), np.int64)
    empty_plan = np.empty(0, np.int64)

    h0 = h_ff(init, rule_pre_ptr, rule_pre, rule_add_ptr, rule_add, rule_action, goal_true,
              cost, supporter, marked, used)
    if h0 >= INF:
        return NO_PLAN, empty_plan, 1
    states[0] = init
    parent[0], via[0], depth[0], chain[0] = -1, -1, 0, -1
    key = np.int64(0)
    for a in range(n_atoms):
        if init[a]:
            key ^= zobrist[a]
    seen[key] = 0
    count = 1
    heap = _push(heap, 0, weight * h0, h0, 0)
    size = 1
    closed = np.zeros(capacity, np.uint8)
    child = np.empty(n_atoms, np.uint8)
    while size > 0:
        node = _pop(heap, size)
        size -= 1
        if closed[node]:
            continue
        closed[node] = 1
        state = states[node]
        at_goal = True
        for g in goal_true:
            if not state[g]:
                at_goal = False
                break
        if at_goal:
            for g in goal_false:
                if state[g]:
                    at_goal = False
                    break
        if at_goal:
            plan = np.empty(depth[node], np.int64)
            k = node
            while parent[k] >= 0:
                plan[depth[k] - 1] = via[k]
                k = parent[k]
            return FOUND, plan, count
        for act in range(n_actions):
            if not _holds(state, pre_ptr, pre, act, 1) or not _holds(state, npre_ptr, npre,
                                                                       act, 0):
                continue
            child[:] = state
            # effects read the state before the action; deletes first, then adds
            for j in range(del_ptr[act], del_ptr[act + 1]):
                child[dele[j]] = 0
            for e in range(ce_ptr[act], ce_ptr[act + 1]):
                if (not ce_value[e] and _holds(state, ce_pos_ptr, ce_pos, e, 1)
                        and _holds(state, ce_neg_ptr, ce_neg, e, 0)):
                    child[ce_atom[e]] = 0
            for j in range(add_ptr[act], add_ptr[act + 1]):
                child[add[j]] = 1
            for e in range(ce_ptr[act], ce_ptr[act + 1]):
                if (ce_value[e] and _holds(state, ce_pos_ptr, ce_pos, e, 1)
                        and _holds(state, ce_neg_ptr, ce_neg, e, 0)):
                    child[ce_atom[e]] = 1
            key = np.int64(0)
            for a in range(n_atoms):
                if child[a]:
                    key ^= zobrist[a]
            # not seen.get(key, -1): numba types that as optional, which cannot index
            known = seen[key] if key in seen else -1  # noqa: SIM401
            duplicate = False
            while known >= 0:
                if np.array_equal(states[known], child):
                    duplicate = True
                    break
                known = chain[known]
            if duplicate:
                continue  # a state is reached once: the first path to it stays (no reopening)
            h = h_ff(child, rule_pre_ptr, rule_pre, rule_add_ptr, rule_add, rule_action,
                     goal_true, cost, supporter, marked, used)
            if h >= INF:
                continue
            if count == max_nodes:
                return LIMIT, empty_plan, count
            if count == capacity:
                capacity *= 2
                grown = np.empty((capacity, n_atoms), np.uint8)
                grown[:count] = states[:count]
                states = grown
                parent = np.concatenate((parent, np.empty(count, np.int64)))
                via = np.concatenate((via, np.empty(count, np.int64)))
                depth = np.concatenate((depth, np.empty(count, np.int64)))
                chain = np.concatenate((chain, np.empty(count, np.int64)))
                closed = np.concatenate((closed, np.zeros(count, np.uint8)))
            states[count] = child
            parent[count], via[count], depth[count] = node, act, depth[node] + 1
            chain[count] = seen[key] if key in seen else -1  # noqa: SIM401
            seen[key] = count
            heap = _push(heap, size, depth[count] + weight * h, h, count)
            size += 1
            count += 1
    return NO_PLAN, empty_plan, count

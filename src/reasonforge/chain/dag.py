"""The step dependency DAG: validation, topological order, ancestors and dependants."""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from reasonforge.errors import InputError
from reasonforge.types import ReasoningStep


class StepGraph:
    """Validated dependency DAG of a reasoning chain (edges point from a step to what it uses)."""

    def __init__(self, steps: Sequence[ReasoningStep]) -> None:
        if not steps:
            raise InputError(
                "the reasoning chain is empty; send at least one step", field="reasoning_chain"
            )
        self.step_ids: list[int] = []
        position: dict[int, int] = {}
        for index, step in enumerate(steps):
            if step.step_id in position:
                raise InputError(
                    f"duplicate step_id {step.step_id} (also used by step #{position[step.step_id] + 1} "
                    f"of reasoning_chain); give every step a unique step_id",
                    field=f"reasoning_chain[{index}].step_id",
                    step_id=step.step_id,
                )
            position[step.step_id] = index
            self.step_ids.append(step.step_id)
        self._position = position
        self.dependencies: dict[int, tuple[int, ...]] = {}
        for index, step in enumerate(steps):
            self.dependencies[step.step_id] = self._direct_dependencies(index, step)
        self.order = self._topological_order()
        self._ancestors = self._transitive(self.dependencies, self.order)
        dependants: dict[int, list[int]] = {sid: [] for sid in self.step_ids}
        for sid, deps in self.dependencies.items():
            for dep in deps:
                dependants[dep].append(sid)
        self._dependants = self._transitive(
            {k: tuple(v) for k, v in dependants.items()}, list(reversed(self.order))
        )

    def _direct_dependencies(self, index: int, step: ReasoningStep) -> tuple[int, ...]:
        field = f"reasoning_chain[{index}].dependencies"
        if step.dependencies is None:
            # The plan's default: a step builds on the one before it.
            return () if index == 0 else (self.step_ids[index - 1],)
        seen: list[int] = []
        for dep in step.dependencies:
            if dep == step.step_id:
                raise InputError(
                    "a step cannot depend on itself; remove its own id from dependencies",
                    field=field,
                    step_id=step.step_id,
                )
            if dep not in self._position:
                known = ", ".join(str(s) for s in self.step_ids)
                raise InputError(
                    f"depends on unknown step {dep}; dependencies must name step_ids of this chain ({known})",
                    field=field,
                    step_id=step.step_id,
                )
            if dep not in seen:
                seen.append(dep)
        return tuple(seen)

    def _topological_order(self) -> list[int]:
        # Kahn's algorithm; ties broken by position in the request so the order is deterministic.
        remaining = {sid: len(deps) for sid, deps in self.dependencies.items()}
        users: dict[int, list[int]] = {sid: [] for sid in self.step_ids}
        for sid, deps in self.dependencies.items():
            for dep in deps:
                users[dep].append(sid)
        ready = [self._position[sid] for sid, n in remaining.items() if n == 0]
        heapq.heapify(ready)
        order: list[int] = []
        while ready:
            sid = self.step_ids[heapq.heappop(ready)]
            order.append(sid)
            for user in users[sid]:
                remaining[user] -= 1
                if remaining[user] == 0:
                    heapq.heappush(ready, self._position[user])
        if len(order) < len(self.step_ids):
            cycle = self._find_cycle({sid for sid, n in remaining.items() if n > 0})
            path = " -> ".join(str(s) for s in cycle)
            raise InputError(
                f"dependencies form a cycle ({path}); a step may only use steps that do not use it back",
                field=f"reasoning_chain[{self._position[cycle[0]]}].dependencies",
                step_id=cycle[0],
            )
        return order

    def _find_cycle(self, stuck: set[int]) -> list[int]:
        # Every stuck node has a stuck dependency, so walking dependencies must revisit a node.
        start = min(stuck, key=self._position.__getitem__)
        path: list[int] = []
        seen: dict[int, int] = {}
        node = start
        while node not in seen:
            seen[node] = len(path)
            path.append(node)
            node = next(dep for dep in self.dependencies[node] if dep in stuck)
        cycle = path[seen[node] :]
        return cycle + [cycle[0]]

    def _transitive(
        self, edges: dict[int, tuple[int, ...]], order: list[int]
    ) -> dict[int, tuple[int, ...]]:
        # `order` visits every node after all of its edge targets, so each target's closure
        # is already complete when it is merged in.
        rank = {sid: i for i, sid in enumerate(self.order)}
        closure: dict[int, set[int]] = {}
        for sid in order:
            reach: set[int] = set()
            for nxt in edges[sid]:
                reach.add(nxt)
                reach |= closure.get(nxt, set())
            closure[sid] = reach
        return {sid: tuple(sorted(reach, key=rank.__getitem__)) for sid, reach in closure.items()}

    def ancestors(self, step_id: int) -> tuple[int, ...]:
        """Every step `step_id` relies on, directly or transitively, in topological order."""
        return self._ancestors[step_id]

    def dependants(self, step_id: int) -> tuple[int, ...]:
        """Every step that relies on `step_id`, directly or transitively, in topological order."""
        return self._dependants[step_id]

    def position(self, step_id: int) -> int:
        """Index of the step in the request's reasoning_chain."""
        return self._position[step_id]

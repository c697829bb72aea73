"""The step DAG: default dependencies, deterministic topological order, closures."""

from reasonforge.chain import StepGraph
from reasonforge.types import ReasoningStep


def steps(*deps):
    return [ReasoningStep(step_id=i + 1, content="s", dependencies=d) for i, d in enumerate(deps)]


def test_default_dependency_is_previous_step():
    graph = StepGraph(steps(None, None, None))
    assert graph.dependencies == {1: (), 2: (1,), 3: (2,)}
    assert graph.ancestors(3) == (1, 2)
    assert graph.dependants(1) == (2, 3)


def test_topological_order_follows_dependencies_not_ids():
    # Step 1 uses step 3, which is listed later: the order must put 3 first.
    graph = StepGraph(steps([3], [], []))
    assert graph.order == [2, 3, 1]


def test_diamond_closures():
    graph = StepGraph(steps([], [1], [1], [2, 3], [4]))
    assert graph.ancestors(5) == (1, 2, 3, 4)
    assert graph.dependants(2) == (4, 5)
    assert graph.dependants(1) == (2, 3, 4, 5)


def test_repeated_dependency_is_kept_once():
    graph = StepGraph(steps([], [1, 1]))
    assert graph.dependencies[2] == (1,)

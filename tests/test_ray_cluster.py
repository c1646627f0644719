"""The Ray backend on a simulated two-node cluster (``ray.cluster_utils.Cluster``).

A head node and a second node, one CPU each, on this machine. An experiment run
through the runner with ``address=`` (so the runner joins the cluster and ships the
checkout's code, :func:`experiments.runner.ray_runtime_env`) spreads its units
over both nodes (each shard records the Ray node it ran on) and writes the same
bytes as the local backend. A task started from a directory that is not the
checkout imports the shipped copy, without numba caches. Under ``CI=true`` a
missing ray fails instead of skipping.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from conftest import IN_CI, ROOT

from experiments import runner

RAY = importlib.util.find_spec("ray") is not None
pytestmark = pytest.mark.skipif(
    not RAY and not IN_CI,
    reason="ray is not installed (pip install -e '.[distributed]'); under CI=true this "
           "test runs and fails instead")

SMALL_STATS = {"hands": 400, "chunk": 200}        # 15 configurations x 2 chunks = 30 units
NODE_MEMORY = 80 * 1024 * 1024                    # object store per node (bytes)


def result_files(run_dir: Path) -> dict[str, bytes]:
    """Every derived file of a run (rows, tables, text), by name."""
    names = sorted(p.name for p in run_dir.iterdir()
                   if p.suffix in (".csv", ".parquet", ".txt") and p.is_file())
    return {n: (run_dir / n).read_bytes() for n in names}


@pytest.fixture(scope="module")
def cluster():
    """A head node and one more node, 1 CPU each; always shut down afterwards."""
    import ray
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        ray.shutdown()
    c = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 1, "object_store_memory": NODE_MEMORY, "include_dashboard": False})
    try:
        c.add_node(num_cpus=1, object_store_memory=NODE_MEMORY)
        c.wait_for_nodes()
        yield c
    finally:
        if ray.is_initialized():
            ray.shutdown()
        c.shutdown()


def node_ids(c) -> set[str]:
    return {c.head_node.node_id, *(n.node_id for n in c.worker_nodes)}


def test_two_nodes_write_the_local_bytes(cluster, tmp_path):
    local = runner.run("rules_stats", overrides=SMALL_STATS, out=tmp_path / "local",
                       workers=1, progress=False, verbose=False)
    import ray
    # Where Ray runs each unit depends on timing: a node whose worker process starts
    # slowly (a loaded machine) may get no unit before the head has run them all,
    # because Ray hands the next queued task to a worker that just finished. So the
    # run is repeated (at most 3 times, fresh folders) until both nodes took units;
    # every attempt must still write the local bytes.
    seen = []
    for attempt in range(3):
        remote = runner.run("rules_stats", overrides=SMALL_STATS,
                            out=tmp_path / f"ray{attempt}", backend="ray",
                            address=cluster.address, workers=2, progress=False, verbose=False)
        assert not ray.is_initialized()        # the runner joined, then left the cluster
        shards = [json.loads(p.read_text())
                  for p in sorted((remote.path / "shards").glob("*.json"))]
        assert len(shards) == 30
        seen.append({s["node"] for s in shards})
        assert result_files(remote.path) == result_files(local.path)
        if seen[-1] == node_ids(cluster):
            break
    assert seen[-1] == node_ids(cluster), f"the units did not run on both nodes: {seen}"
    assert remote.metadata["backend"] == "ray"
    assert remote.metadata["address"] == cluster.address

    ours, theirs = result_files(remote.path), result_files(local.path)
    assert {"rows.csv", "summary.csv", "seats.csv", "summary.txt"} <= set(theirs)
    assert ours.keys() == theirs.keys()
    for name in theirs:
        assert ours[name] == theirs[name], f"{name} differs between the ray and local backends"
    # The recorded hashes agree too, except the shard journal's (shards hold timings,
    # host and node).
    hashes = {k: v for k, v in remote.metadata["sha256"].items() if k != "shards.sha256"}
    assert hashes == {k: v for k, v in local.metadata["sha256"].items() if k != "shards.sha256"}


def test_nodes_without_the_checkout_import_the_shipped_code(cluster, tmp_path, monkeypatch):
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    # Ray puts the driver's working directory on the workers' path: away from the
    # checkout, a worker can only import the project from what the runner ships.
    monkeypatch.chdir(tmp_path)
    ray.init(address=cluster.address, runtime_env=runner.ray_runtime_env(),
             logging_level="WARNING")
    try:
        @ray.remote(num_cpus=1)
        def where():
            import glob
            import os

            import experiments
            import solvers
            import spiel_game
            top = os.path.dirname(os.path.dirname(spiel_game.__file__))
            return {"node": ray.get_runtime_context().get_node_id(),
                    "files": [m.__file__ for m in (spiel_game, solvers, experiments)],
                    "numba_caches": glob.glob(os.path.join(top, "**", "*.nb[ic]"),
                                              recursive=True)}

        seen = [ray.get(where.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
                    node, soft=False)).remote(), timeout=120)
                for node in sorted(node_ids(cluster))]
    finally:
        ray.shutdown()
    assert {s["node"] for s in seen} == node_ids(cluster)
    for s in seen:
        for f in s["files"]:
            assert not Path(f).resolve().is_relative_to(ROOT), f"{f}: imported from the checkout"
            assert "runtime_resources" in Path(f).parts, f
        assert s["numba_caches"] == []      # each node compiles its own kernels


def test_runtime_env_ships_the_packages_without_caches():
    env = runner.ray_runtime_env()
    assert [Path(p).name for p in env["py_modules"]] == list(runner.RAY_PACKAGES)
    for p in env["py_modules"]:
        assert (Path(p) / "__init__.py").is_file()
    assert "__pycache__" in env["excludes"]


def test_bad_ship_code_value_is_named(cluster, tmp_path, monkeypatch):
    monkeypatch.setenv("CH_RAY_SHIP_CODE", "yes")
    with pytest.raises(runner.RunError, match=r"CH_RAY_SHIP_CODE='yes'.*allowed values are 1"):
        runner.run("rules_stats", overrides=SMALL_STATS, out=tmp_path, backend="ray",
                   address=cluster.address, workers=2, progress=False, verbose=False)

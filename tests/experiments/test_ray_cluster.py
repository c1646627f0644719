"""The Ray backend on a simulated two-node cluster (``ray.cluster_utils.Cluster``).

A head node and a second node, one CPU each, on this machine. An experiment run
through the runner with ``address=`` (so the runner joins the cluster and ships the
checkout's code, :func:`experiments.runner.ray_runtime_env`) runs its units on
whichever node has a free CPU (each shard records the Ray node it ran on; the
test holds one node's CPU at a time, so each node runs a whole run) and writes
the same bytes as the local backend. A task started from a directory that is not the
checkout imports the shipped copy, without numba caches. Under ``CI=true`` a
missing ray fails instead of skipping.
"""

from __future__ import annotations

import contextlib
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


NAMESPACE = "cancellation-hearts-tests"


@contextlib.contextmanager
def cpu_held_on(c, node: str):
    """Hold the one CPU of ``node`` (a detached actor pinned there) until the block ends.

    The actor outlives the connection that made it, so a run started inside the
    block joins the cluster by itself and finds only the other node free."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    @ray.remote(num_cpus=1)
    class Holder:
        def node(self):
            return ray.get_runtime_context().get_node_id()

    name = f"hold-{node}"
    ray.init(address=c.address, namespace=NAMESPACE, logging_level="WARNING")
    try:
        holder = Holder.options(name=name, lifetime="detached",
                                scheduling_strategy=NodeAffinitySchedulingStrategy(
                                    node, soft=False)).remote()
        assert ray.get(holder.node.remote(), timeout=120) == node
    finally:
        ray.shutdown()
    try:
        yield
    finally:
        ray.init(address=c.address, namespace=NAMESPACE, logging_level="WARNING")
        try:
            ray.kill(ray.get_actor(name, namespace=NAMESPACE))
        finally:
            ray.shutdown()


def test_units_run_on_either_node_and_write_the_local_bytes(cluster, tmp_path):
    local = runner.run("rules_stats", overrides=SMALL_STATS, out=tmp_path / "local",
                       workers=1, progress=False, verbose=False)
    theirs = result_files(local.path)
    assert {"rows.csv", "summary.csv", "seats.csv", "summary.txt"} <= set(theirs)
    import ray
    # Which node takes a unit is Ray's choice and depends on timing (a node whose
    # worker starts slowly may get none before the other has run them all). So each
    # node in turn has its CPU held: every unit must then run on the other one, the
    # driver's node (the head) and a node that only has what the runner ships.
    nodes = node_ids(cluster)
    for busy in sorted(nodes):
        with cpu_held_on(cluster, busy):
            remote = runner.run("rules_stats", overrides=SMALL_STATS,
                                out=tmp_path / f"ray-{busy[:8]}", backend="ray",
                                address=cluster.address, workers=2, progress=False,
                                verbose=False)
            assert not ray.is_initialized()    # the runner joined, then left the cluster
        shards = [json.loads(p.read_text())
                  for p in sorted((remote.path / "shards").glob("*.json"))]
        assert len(shards) == 30
        assert {s["node"] for s in shards} == nodes - {busy}
        assert remote.metadata["backend"] == "ray"
        assert remote.metadata["address"] == cluster.address

        ours = result_files(remote.path)
        assert ours.keys() == theirs.keys()
        for name in theirs:
            assert ours[name] == theirs[name], \
                f"{name} differs between the ray (on {nodes - {busy}}) and local backends"
        # The recorded hashes agree too, except the shard journal's (shards hold
        # timings, host and node).
        hashes = {k: v for k, v in remote.metadata["sha256"].items() if k != "shards.sha256"}
        assert hashes == {k: v for k, v in local.metadata["sha256"].items()
                          if k != "shards.sha256"}


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

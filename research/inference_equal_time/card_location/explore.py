"""Model selection on held-out training hands (section 9 of ../notes.md).

    python research/inference_equal_time/card_location/explore.py N TRAIN.npz

TRAIN.npz: ``python research/scripts/card_location.py collect --players N
--hands 1200 --seed 0 --out TRAIN.npz``. Prepares it once (prior from 128
worlds, seed 0), then trains four variants for 1,500 steps with the held-out
loss every 100 steps (the last 10% of the hands) and prints each curve
(``explore<N>.log`` here); step 0 is the prior's loss (z = 0).
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from card_location import load_collection
from solvers.beliefs import _location as LOC

n, path = int(sys.argv[1]), sys.argv[2]
d = load_collection(path)
assert int(d["meta"]["config"]["players"]) == n
t = time.time()
prep = LOC.prepare_collection(d, 128, seed=0)
print("prep", time.time() - t, flush=True)
OWN = ("dealt_hand", "hand", "passed", "received")
variants = [("h256_own_out", dict(hidden=256, exclude=OWN)),
            ("h64_own_out_wd", dict(hidden=64, exclude=OWN, weight_decay=1e-5)),
            ("h64_all", dict(hidden=64)),
            ("h32_own_out_lr3e-4", dict(hidden=32, exclude=OWN, lr=3e-4))]
for name, kw in variants:
    m, curve = LOC.train_location([prep], steps=1500, eval_every=100, early_stop=True, seed=0,
                                  **kw)
    v = [(p["step"], round(p["valid"], 4)) for p in curve]
    print(name, "best", m.config["best_step"], v, flush=True)

"""Figure: exact exploitability of passing conventions on reduced deals
(reads results/<profile>/passing_exact/rows.csv from the runner).

``python paper/figures/passing_exact.py [results_dir]`` writes
paper/figures/passing_exact.{pdf,png}.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent


def main(argv=None) -> int:
    import pandas as pd
    argv = sys.argv[1:] if argv is None else argv
    results = Path(argv[0]) if argv else Path("results/quick")
    src = results / "passing_exact" / "rows.csv"
    if not src.exists():   # the paper's contract: warn, write nothing, exit 0
        print(f"warning: {src} not found (python -m experiments run passing_exact); "
              f"no figure written")
        return 0
    rows = pd.read_csv(src)
    conv = rows[rows.kind == "convention"]
    deals = list(dict.fromkeys(conv.deal))
    fig, axes = plt.subplots(1, len(deals), figsize=(4.5 * len(deals), 3.2), squeeze=False)
    for ax, deal in zip(axes[0], deals):
        d = conv[conv.deal == deal]
        x = np.arange(len(d))
        ax.bar(x - 0.2, d.gain_pass_only, 0.4, label="best response in passing")
        ax.bar(x + 0.2, d.gain_pass_play, 0.4, label="in passing and play")
        ax.set_xticks(x, d.convention, rotation=45, ha="right", fontsize=7)
        ax.set_title(f"{deal} ({int(d.players.iloc[0])} players)", fontsize=9)
        ax.set_ylabel("exact gain (points/hand)")
        ax.axhline(0, color="k", lw=0.6)
    axes[0][0].legend(fontsize=7)
    for ext in ("pdf", "png"):
        fig.savefig(HERE / f"passing_exact.{ext}", bbox_inches="tight", dpi=150)
    plt.close(fig)
    print(f"wrote {HERE / 'passing_exact.pdf'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The headline figures of the README and of the docs' results page are the
shipped results' numbers.

Each row of the README's "Headline figures" table (and of ``docs/results.md``'s
"Headline numbers") is found by a phrase of its
first column, and every number it quotes is recomputed here from the file it
names: the paper's macros (written from ``paper/results/``), the benchmark
JSON, the ladder's budget sweep, the model zoo's tournament and the xinxin
sweep's equal-CPU curve. A re-shipped result with a stale README row fails.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from functools import cache
from pathlib import Path

import pytest

from conftest import ROOT
from texmacros import collect

SHIPPED = ROOT / "paper" / "results"
README = ROOT / "README.md"
RESULTS_PAGE = ROOT / "docs" / "results.md"


@cache
def macros() -> dict[str, str]:
    """Every paper macro, as plain text (no TeX thousands braces or math minus)."""
    m = collect(SHIPPED, SHIPPED / "bench")
    assert not m.warnings, m.warnings
    out = {}
    for line in m.lines:
        hit = re.match(r"\\newcommand\{\\(\w+)\}\{(.*?)\}(?:  %.*)?$", line)
        if hit:
            text = re.sub(r"\\texttt\{(.*?)\}", r"\1", hit.group(2)).replace("\\_", "_")
            out[hit.group(1)] = text.replace("{,}", ",").replace("$-$", "-").replace("-", "−")
    return out


def plain(x: float, digits: int = 2, sign: bool = False) -> str:
    """``x`` as the README prints it: the minus sign U+2212, ``+`` only if asked."""
    s = f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"
    return s.replace("-", "−")


def ci(mean: float, lo: float, hi: float, sign: bool = True) -> str:
    return f"{plain(mean, sign=sign)} [{plain(lo)}, {plain(hi)}]"


def macro_ci(stem: str, sign: bool = True) -> str:
    m = macros()
    mean = m[stem + "Gain"]
    if sign and not mean.startswith("−"):
        mean = "+" + mean
    return f"{mean} [{m[stem + 'Lo']}, {m[stem + 'Hi']}]"


def bench(name: str) -> dict:
    return json.loads((SHIPPED / "bench" / f"{name}.json").read_text())["result"]


def rows(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def readme_row(phrase: str, page: Path | None = None) -> str:
    page = page or README
    found = [line for line in page.read_text().splitlines()
             if line.startswith("| ") and phrase in line.split("|")[1]]
    assert len(found) == 1, f"{len(found)} headline rows of {page.name} name {phrase!r}"
    return found[0]


def simulator():
    return [f"{bench('sim')['speedup_vs_cpp_hearts']:.2f}x"]


def search():
    s = bench("search")["speed"]
    return [f"{s['ratio_vs_openspiel_python']:.0f}x", f"{s['ratio_vs_openspiel_cpp_hearts']:.2f}x",
            f"{round(s['iterations_per_second']['ours']):,} iterations/s"]


def ismcts_vs_heuristic():
    r = next(r for r in rows(SHIPPED / "ladder" / "sweep.csv")
             if r["iterations"] == "1000" and r["players"] == "6" and r["lower"] == "heuristic")
    return [ci(float(r["gain"]), float(r["gain_lo"]), float(r["gain_hi"]))]


def ladder():
    return [macro_ci("LadderSixPimcIsmcts")]


def confirmatory():
    res = {r["id"]: r for r in rows(SHIPPED / "confirmatory" / "results.csv")}
    assert all(r["interim"] == "False" for r in res.values())
    held = sum(r["holds"] == "True" for r in res.values())
    return [ci(float(res[c]["mean"]), float(res[c]["lo"]), float(res[c]["hi"]))
            for c in ("C3", "C6", "C7", "C8", "C9", "C10")] + [f"{held} of {len(res)} hold"]


def cfr():
    r = bench("cfr")
    return [f"{r['cfr_small_vs_pyspiel']['speedup']:,.0f}x",
            f"{r['nash_conv_small_vs_openspiel']['speedup']:,.0f}x"]


def metagame():
    m = macros()
    return [f"`{m['MetaElevenNashTop']}`, mass {m['MetaElevenNashTopMass']}"]


def exploitable():
    m = macros()
    return [f"(`{m['MetaElevenLibraryMax']}`)", macro_ci("MetaElevenLibraryMax", sign=False),
            macro_ci("MetaSixLibraryMax", sign=False)]


def network():
    out = []
    for run in ("net6", "net11"):
        r = rows(ROOT / "research" / "model_zoo" / run / "pairs.csv")[0]
        out.append(ci(float(r["payoff_difference"]), float(r["payoff_lo"]), float(r["payoff_hi"])))
    return out + ["zero-sum payoff per hand"]   # the unit it is in: not the points difference


def xinxin_sweep():
    curve = rows(SHIPPED / "xinxin_sweep" / "curve.csv")
    finished = [r for r in curve if r["status"] == "finished"]
    assert finished
    out = [plain(float(r["mean"]), sign=True) for r in finished]
    for r in curve:   # an equal-CPU interim cell once it has a quarter of its deals
        if (r["status"] == "interim" and r["equal_cpu"] == "True"
                and 4 * int(r["deals"]) >= int(r["declared_deals"])):
            out.append(f"{ci(float(r['mean']), float(r['lo']), float(r['hi']))} over "
                       f"{r['deals']} of {r['declared_deals']} deals")
    if all(float(r["lo"]) > 0 for r in finished):
        out.append("all intervals above 0")
    return out


ROWS = {
    "batch simulator against OpenSpiel's C++ `hearts`": simulator,
    "ISMCTS iterations/s against OpenSpiel's Python": search,
    "ISMCTS (1,000 iterations) against the heuristic player": ismcts_vs_heuristic,
    "agent ladder at 6 players": ladder,
    "pre-registered confirmatory family": confirmatory,
    "CFR iteration / NashConv": cfr,
    "passing conventions, 11 players: equilibrium": metagame,
    "most exploitable convention": exploitable,
    "shipped network (no search)": network,
    "xinxin, pre-registered sweeps": xinxin_sweep,
}


@pytest.mark.parametrize("phrase", list(ROWS))
def test_a_readme_headline_row_quotes_the_shipped_numbers(phrase):
    row = readme_row(phrase)
    missing = [x for x in ROWS[phrase]() if x not in row]
    assert not missing, f"README row {phrase!r} lacks {missing} (the shipped results)"


def ladder_steps():
    steps = rows(SHIPPED / "ladder" / "steps.csv")
    six = [ci(float(r["gain"]), float(r["gain_lo"]), float(r["gain_hi"]))
           for r in steps if r["players"] == "6"]
    eleven = [plain(float(r["gain"]), sign=True) for r in steps if r["players"] == "11"]
    return six + [", ".join(eleven[:-1]) + " and " + eleven[-1]]


def results_page_passing():
    m = macros()
    return [f"mass at least {m['MetaElevenNashTopLo']}",
            macro_ci("MetaElevenLibraryMax", sign=False), macro_ci("MetaSixLibraryMax", sign=False)]


def results_page_xinxin():
    curve = rows(SHIPPED / "xinxin_sweep" / "curve.csv")
    finished = [r for r in curve if r["status"] == "finished"]
    assert all(float(r["lo"]) > 0 for r in finished)
    def ms(b: int) -> str:
        return f"{b} ms" if b < 1000 else f"{b // 1000} s"

    def variant(passing: str) -> str:
        return "with passing" if passing == "True" else "without passing"

    done = {}
    for r in finished:
        done.setdefault(int(r["budget_ms"]), set()).add(r["passing"])
    both = sorted(b for b, v in done.items() if v == {"True", "False"})
    phrases = [f"from {both[0]} to {both[-1]} ms per decision", "with and without passing"]
    # a budget finished in one variant only is named with that variant
    phrases += [f"at {ms(b)} {variant(next(iter(v)))}" for b, v in sorted(done.items())
                if len(v) == 1]
    todo = {}
    for r in curve:
        if r["status"] != "finished":
            todo.setdefault(int(r["budget_ms"]), set()).add(r["passing"])
    if todo:
        names = [ms(b) if v == {"True", "False"} else f"{ms(b)} {variant(next(iter(v)))}"
                 for b, v in sorted(todo.items())]
        phrases.append("the " + " and ".join(names) + " cells are still running")
    return phrases


PAGE_ROWS = {
    "engine speed": lambda: simulator() + search(),
    "agent ladder (6 players": ladder_steps,
    "ISMCTS against the heuristic": ismcts_vs_heuristic,
    "pre-registered confirmatory family": lambda: confirmatory()[:-2] + confirmatory()[-1:],
    "passing conventions (11 players)": results_page_passing,
    "the shipped network": network,
    "xinxin at equal CPU time": results_page_xinxin,
}


@pytest.mark.parametrize("phrase", list(PAGE_ROWS))
def test_a_results_page_row_quotes_the_shipped_numbers(phrase):
    row = readme_row(phrase, RESULTS_PAGE)
    missing = [x for x in PAGE_ROWS[phrase]() if x not in row]
    assert not missing, f"docs/results.md row {phrase!r} lacks {missing} (the shipped results)"


def test_every_readme_headline_row_is_checked():
    text = README.read_text().split("## Headline figures", 1)[1].split("\n## ", 1)[0]
    names = [line.split("|")[1].strip() for line in text.splitlines()
             if line.startswith("| ") and not line.startswith("| figure") and "---" not in line]
    assert names and all(any(p in n for p in ROWS) for n in names), names


def test_a_stale_row_is_caught(monkeypatch, tmp_path):
    stale = tmp_path / "README.md"
    stale.write_text(README.read_text().replace(simulator()[0], "9.99x"))
    monkeypatch.setattr(sys.modules[__name__], "README", stale)
    with pytest.raises(AssertionError, match="lacks"):
        test_a_readme_headline_row_quotes_the_shipped_numbers(next(iter(ROWS)))

"""The paper's text: references resolve, related work is cited, no build line in
the title block, no hyphen typed for a minus sign, and the material moved to
``research/paper_appendix/`` is there with the numbers of the shipped results.

These read ``paper/main.tex``, ``paper/refs.bib`` and the shipped results only;
they build nothing (``test_paper.py`` builds the PDF)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAIN = (ROOT / "paper" / "main.tex").read_text()
BIB = (ROOT / "paper" / "refs.bib").read_text()
APPENDIX = ROOT / "research" / "paper_appendix"
SHIPPED = ROOT / "paper" / "results"


def _text(tex: str) -> str:
    """main.tex without comments."""
    return re.sub(r"(?<!\\)%.*", "", tex)


def _bib_entries(bib: str) -> dict[str, str]:
    """Key -> body of every entry of a .bib file."""
    starts = [(m.start(), m.group(1)) for m in re.finditer(r"@\w+\{([^,\s]+),", bib)]
    return {key: bib[a:(starts[i + 1][0] if i + 1 < len(starts) else len(bib))]
            for i, (a, key) in enumerate(starts)}


def _field(entry: str, name: str) -> str:
    m = re.search(rf"\b{name}\s*=\s*\{{(.*?)\}}\s*,?\s*\n\s*(\w+\s*=|\}})", entry, re.S)
    return m.group(1) if m else ""


def test_every_ref_has_a_label_and_every_citation_an_entry():
    text = _text(MAIN)
    labels = set(re.findall(r"\\label\{([^}]*)\}", text))
    refs = set(re.findall(r"\\ref\{([^}]*)\}", text))
    assert refs - labels == set(), f"\\ref without \\label: {sorted(refs - labels)}"
    cited = {k.strip() for group in re.findall(r"\\cite[pt]?(?:\[[^]]*\])*\{([^}]*)\}", text)
             for k in group.split(",")}
    missing = cited - set(_bib_entries(BIB))
    assert not missing, f"cited but not in refs.bib: {sorted(missing)}"


def test_the_title_block_has_no_build_line():
    head = MAIN[MAIN.index("\\title{"):MAIN.index("\\begin{abstract}")]
    for word in ("commit", "uncommitted", "dirty", "build"):
        assert word not in head.lower(), f"the title block mentions {word!r}: {head}"


@pytest.mark.parametrize("key", [
    "walsh2002analyzing", "tuyls2018generalised", "hart2000simple", "burch2018aivat",
    "brown2020rebel", "schmid2023sog", "rebstock2024transformer", "sturtevant2008uct",
    "frank1998search", "furtak2013recursive", "abourisk2010multiplayer", "gibson2014thesis",
])
def test_related_work_cites(key):
    related = MAIN[MAIN.index("\\section{Related work}"):MAIN.index("\\section{The game")]
    assert key in related, f"Related work does not cite {key}"


def test_go_mcts_has_its_own_paragraph_that_says_it_is_measured_against_xinxin():
    related = MAIN[MAIN.index("\\section{Related work}"):MAIN.index("\\section{The game")]
    para = related[related.index("GO-MCTS"):]
    para = para[:para.index("\\paragraph", 1)]
    assert "rebstock2024transformer" in para and "xinxin" in para
    assert "observation" in para and "transformer" in para


def test_xinxin_is_credited_to_sturtevant_2008_not_the_thesis():
    """Every sentence that names xinxin and cites Sturtevant cites the 2008 UCT
    paper, the program OpenSpiel wraps; the 2003 thesis is not its source."""
    sentences = re.split(r"(?<=[.;])\s", _text(MAIN))
    named = [s for s in sentences if "xinxin" in s and "sturtevant" in s]
    assert named, "no sentence names xinxin with its citation"
    for s in named:
        assert "sturtevant2008uct" in s and "sturtevant2003multiplayer" not in s, s
    entry = _bib_entries(BIB)["sturtevant2008uct"]
    assert "UCT" in _field(entry, "title") and "2008" in _field(entry, "year")


def test_no_reference_gives_a_repository_path_or_its_key_as_author_or_title():
    for key, entry in _bib_entries(BIB).items():
        for name in ("author", "title"):
            value = _field(entry, name)
            assert value, f"{key} has no {name}"
            assert "/" not in value and "github" not in value.lower(), f"{key}: {name} = {value}"
            assert key not in value, f"{key}: its {name} is its key"


def test_text_has_no_hyphen_typed_for_a_minus_sign():
    """A negative number in running text is typeset in math mode ($-5$, \\val,
    \\ensuremath{-}): a hyphen breaks across lines and is too short."""
    text = _text(MAIN)
    text = re.sub(r"\$[^$]*\$|\\\[.*?\\\]", " ", text, flags=re.S)
    bad = [text[max(0, m.start() - 30):m.end() + 10]
           for m in re.finditer(r"(?<![\w{}\-])-\d", text)]
    assert not bad, f"hyphens typed for minus signs: {bad}"


def test_the_moved_material_is_out_of_the_paper_and_its_pages_exist():
    for title in ("\\subsection{CFR variants}", "\\subsection{What CFR converges to",
                  "\\subsection{How far exact solving goes}", "the full log}"):
        assert title not in MAIN, f"{title} is back in the paper"
    paths = re.findall(r"\\texttt\{(research/paper\\_appendix/[^}]*)\}", MAIN)
    pages = {p.replace("\\_", "_") for p in paths}
    assert {"research/paper_appendix/network_and_inference.md",
            "research/paper_appendix/cfr_and_cce.md"} <= pages, pages
    for page in pages:
        assert (ROOT / page).exists(), f"main.tex points to {page}, which does not exist"


def _two(x: float) -> str:
    s = f"{x:.2f}"
    return "0.00" if s == "-0.00" else s


def test_the_network_log_quotes_the_shipped_comparisons_verbatim():
    """Every ``gain [lo, hi] (`name`)`` of the moved network log is the shipped
    comparison ``name`` of ``bench/net_strength.json``, rounded as the paper
    prints it; and the oracle's measured times are that file's."""
    page = (APPENDIX / "network_and_inference.md").read_text()
    shipped = json.loads((SHIPPED / "bench" / "net_strength.json").read_text())
    comps = shipped["result"]["comparisons"]
    quoted = re.findall(r"(-?\d+\.\d\d) \[(-?\d+\.\d\d), (-?\d+\.\d\d)\] \(`(\w+)`\)", page)
    assert len(quoted) >= 30, f"only {len(quoted)} comparisons quoted"
    for gain, lo, hi, name in quoted:
        g = comps[name]["gain"]
        assert (gain, lo, hi) == (_two(g["mean"]), _two(g["lo"]), _two(g["hi"])), name
    row = re.search(r"^\| 2 \| ([\d.]+) \| ([\d.]+) \|", page, re.M)
    times = comps["oracle6_2ms"]["ms_per_decision"]
    assert row and row.groups() == (_two(times["network"]), _two(times["anchor"]))

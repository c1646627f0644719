"""Paper macros: every number main.tex quotes, written from the saved results.

This package lives with the paper (``paper/tools/``), not in the installed
packages: a study (``experiments/studies/<name>.py``) or benchmark
(``experiments/bench/<name>.py``) saves its results, and the module of the
same name here (``texmacros.studies.<name>``, ``texmacros.bench.<name>``)
turns them into macros; the results of hand-run research scripts by
:mod:`texmacros.research`, which reads their saved JSON. The paper's scripts
put ``paper/tools`` on ``sys.path`` (``import texmacros``). Each module defines::

    def paper_macros(m: Macros, results: Path, bench: Path) -> None:
        meta = lambda: read_json(results / "demo" / "metadata.json")
        m.add("DemoHands", lambda: meta()["config"]["hands"], thousands,
              "random hands per player count in the demo")

``results`` is ``results/<profile>``, ``bench`` the benchmarks' folder. Each
getter runs when added; one whose result is missing (or malformed) defines
the macro as a bold ``??`` and records a warning (``paper/tools/build.py``
then fails unless told to allow missing numbers). ``paper/tables/macros.py``
collects the modules of :data:`SOURCES` in order and writes
``paper/tables/macros.tex``.

Names are per study and generic across profiles (``\\LadderSixPimcIsmctsGain``
with ``Lo``, ``Hi``, ``P``; ``\\CfrThreeFinalPcfrPlus``; ``\\MetaElevenNashTop``).
A ``...Rows`` macro (``add(..., rows=True)``) expands to the body rows of a
table, whatever steps, budgets or conventions the results hold; a macro of a
configuration the results did not run is ``--`` (:meth:`Macros.not_run`,
used only under its ``\\if`` flag, :meth:`Macros.flag`). The formatters
below (:func:`thousands`, :func:`fixed`, :func:`signed`, :func:`sci`,
:func:`seconds`, :func:`pvalue`, :func:`mass`, :func:`interval`, :func:`spread`,
:func:`plural`, :func:`sci_bound`,
:func:`tex_text`, :func:`tt`, :func:`names`) are the paper's only ones. This
module's own :func:`paper_macros` gives the tool versions and machine
recorded with the results.
"""

from __future__ import annotations

import csv
import importlib
import json
import math
import re
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["MISSING", "SOURCES", "WORDS", "Macros", "collect", "paper_macros", "read_json",
           "read_csv", "thousands", "fixed", "signed", "sci", "seconds", "pvalue", "mass",
           "interval", "PAPER_WIDE", "spread", "plural", "sci_bound", "tex_text", "tt", "names"]

MISSING = r"\textbf{??}"

#: The modules whose ``paper_macros`` define the paper's numbers, in the order of macros.tex.
SOURCES = ("texmacros.bench.engine", "texmacros.bench.sim", "texmacros.bench.resample",
           "texmacros.studies.rules_stats", "texmacros.studies.passing_metagame",
           "texmacros.studies.ladder", "texmacros.bench.search", "texmacros.studies.demo",
           "texmacros.studies.cfr_convergence", "texmacros.studies.cce",
           "texmacros.studies.passing_exact", "texmacros.studies.agent_exploitability",
           "texmacros.studies.abr", "texmacros.bench.cfr_large",
           "texmacros.studies.xinxin_sweep",
           "texmacros.studies.confirmatory",
           "texmacros.research",
           "texmacros")

#: Paper-wide numbers that no single study owns (the primary hypotheses and their
#: Holm correction, the results' provenance, the external baseline), defined just
#: before this module's tool versions.
PAPER_WIDE = ("texmacros.hypotheses", "texmacros.provenance", "texmacros.external")
SOURCES = SOURCES[:-1] + PAPER_WIDE + SOURCES[-1:]

#: Player counts as they appear in macro names.
WORDS = {2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight",
         9: "Nine", 10: "Ten", 11: "Eleven"}

#: What a getter may raise when its result is missing or malformed (the macro is then ``??``).
ERRORS = (OSError, KeyError, ValueError, IndexError, TypeError, StopIteration,
          ZeroDivisionError)

#: Versions quoted in the text, by their key in metadata.json.
TOOLS = (("python", "Python"), ("open_spiel", "OpenSpiel"), ("numpy", "NumPy"),
         ("numba", "Numba"), ("scipy", "SciPy"), ("pandas", "pandas"),
         ("matplotlib", "Matplotlib"))


# ------------------------------------------------------------------ reading
def read_json(path: Path) -> dict:
    return json.loads(Path(path).read_text())


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# ------------------------------------------------------------------ formatting
def thousands(x: int) -> str:
    """``20000`` -> ``20{,}000`` (a LaTeX thousands separator)."""
    return f"{int(x):,}".replace(",", "{,}")


def fixed(digits: int) -> Callable[[float], str]:
    """A formatter with ``digits`` decimals."""
    return lambda x: f"{float(x):.{digits}f}"


def signed(x: float, digits: int = 2) -> str:
    """A gain: ``-0.43``, ``0.00`` (never ``-0.00``)."""
    s = f"{float(x):.{digits}f}"
    return s[1:] if s.startswith("-") and float(s) == 0 else s


def minus_signs(text: str) -> str:
    """Table text with each negative number's hyphen typeset as a minus sign
    (``-0.43`` -> ``\\ensuremath{-}0.43``), so that it neither looks like a hyphen
    nor breaks; hyphens inside words and en-dashes (``--``) are kept."""
    return re.sub(r"(?<![\w\\{}^-])-(?=\.?\d)", r"\\ensuremath{-}", text)


def sci(x: float, digits: int = 1) -> str:
    """``0.00127`` -> ``\\ensuremath{1.3\\times 10^{-3}}``; plain below 3 orders."""
    x = float(x)
    if x == 0:
        return "0"
    exp = math.floor(math.log10(abs(x)))
    if -2 <= exp <= 2:
        return f"{x:.{max(0, digits + 1 - exp)}f}" if exp < 0 else f"{x:.{digits + 1}g}"
    mant = x / 10 ** exp
    if round(mant, digits) >= 10:
        mant, exp = mant / 10, exp + 1
    return rf"\ensuremath{{{mant:.{digits}f}\times 10^{{{exp}}}}}"


def seconds(x: float) -> str:
    """``352.0`` -> ``352``, ``3.7`` -> ``3.7``, ``0.0213`` -> ``0.021``."""
    x = float(x)
    if x >= 10:
        return f"{x:.0f}"
    if x >= 1:
        return f"{x:.1f}"
    return f"{x:.2g}"


def pvalue(p: float) -> str:
    """``0.011``; ``\\ensuremath{3\\times 10^{-4}}`` below 0.001."""
    p = float(p)
    if p >= 0.001:
        return f"{p:.3f}"
    if p <= 0:
        return r"\ensuremath{<10^{-300}}"
    exp = math.floor(math.log10(p))
    mant = round(p / 10 ** exp)
    if mant >= 10:
        mant, exp = 1, exp + 1
    return rf"\ensuremath{{{mant}\times 10^{{{exp}}}}}"


def mass(x: float) -> str:
    """A probability mass: ``0.00`` (never ``-0.00``), ``1.00``."""
    return signed(x, 2)


def interval(lo: float, hi: float, digits: int = 2) -> str:
    """A 95% interval: ``[-0.12, 0.40]``."""
    return f"[{signed(lo, digits)}, {signed(hi, digits)}]"


def spread(lo: float, hi: float, n: int, unit: str, fmt: Callable = signed,
           bracket: bool = True) -> str:
    """An interval that says so when it is degenerate: ``[0.12, 0.40]`` (``bracket``)
    or ``0.12 to 0.40``; but ``all 500 bootstrap replicates gave 1.00`` when both
    bounds print the same (``n`` replicates, seeds, ... named by ``unit``)."""
    a, b = fmt(lo), fmt(hi)
    if a == b:
        return f"all {thousands(n)} {unit} gave {a}"
    return f"[{a}, {b}]" if bracket else f"{a} to {b}"


def plural(n: int, one: str, many: str | None = None) -> str:
    """``1 deal``, ``3 deals``, ``0 deals`` (``many``: the plural when not ``one + 's'``)."""
    n = int(n)
    return f"{thousands(n)} {one if n == 1 else (many or one + 's')}"


def sci_bound(x: float, direction: str, digits: int = 2) -> str:
    """A bound in scientific notation, rounded so that it stays a bound:
    ``direction="up"`` for an upper bound (``3.415e-15`` -> ``3.5\\times 10^{-15}``),
    ``"down"`` for a lower bound (``5.68e4`` -> ``5.6\\times 10^{4}``); ``digits``
    significant digits; math-mode text without ``$``. Exact in decimal: a value
    that already has ``digits`` digits is printed unchanged."""
    from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

    if direction not in ("up", "down"):
        raise ValueError(f"direction must be 'up' or 'down', got {direction!r}")
    x = float(x)
    if not x > 0 or math.isinf(x):
        raise ValueError(f"sci_bound needs a finite positive value, got {x}")
    d = Decimal(repr(x))
    exp = d.adjusted()
    mant = d.scaleb(-exp).quantize(Decimal(1).scaleb(-(digits - 1)),
                                   rounding=ROUND_CEILING if direction == "up" else ROUND_FLOOR)
    if mant >= 10:
        mant, exp = (mant / 10).quantize(Decimal(1).scaleb(-(digits - 1)),
                                         rounding=ROUND_CEILING), exp + 1
    return f"{mant}\\times 10^{{{exp}}}"


def tex_text(s: str) -> str:
    """``s`` with LaTeX's special characters escaped."""
    for a, b in (("\\", r"\textbackslash{}"), ("_", r"\_"), ("%", r"\%"), ("&", r"\&"),
                 ("#", r"\#"), ("$", r"\$"), ("{", r"\{"), ("}", r"\}")):
        s = s.replace(a, b)
    return s


def tt(s: str) -> str:
    """``s`` escaped, in typewriter."""
    return rf"\texttt{{{tex_text(s)}}}"


def names(xs) -> str:
    """``a``, ``a and b``, ``a, b and c`` in typewriter."""
    xs = [tt(x) for x in xs]
    if not xs:
        raise ValueError("no names")
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]


# ------------------------------------------------------------------ collecting
class Macros:
    """Collects ``\\newcommand`` (and ``\\newif``) definitions; a failing getter gives ``??``."""

    def __init__(self):
        self.lines: list[str] = []
        self.count = 0
        self.warnings: list[str] = []

    def __repr__(self) -> str:
        return f"Macros({self.count} defined, {len(self.warnings)} missing)"

    def add(self, name: str, getter: Callable[[], object], fmt: Callable = str,
            what: str = "", rows: bool = False) -> None:
        """``\\name`` as ``fmt(getter())``. ``rows``: the value is table rows, so a
        missing one is a row too."""
        try:
            value = fmt(getter())
            if rows:
                value = minus_signs(value)
        except ERRORS as err:
            value = MISSING + (r" \\" if rows else "")
            self.warnings.append(f"\\{name} ({what or 'no description'}): {err!r}")
        self.count += 1
        self.lines.append(f"\\newcommand{{\\{name}}}{{{value}}}" + (f"  % {what}" if what else ""))

    def add_rows(self, name: str, items: Callable[[], Iterable], line: Callable[[object], str],
                 what: str) -> None:
        """``\\name`` as the table rows ``line(item) \\\\`` of every item of ``items()``
        (no items: missing, like a failing getter)."""
        def rows() -> str:
            out = [line(item) + r" \\" for item in items()]
            if not out:
                raise ValueError(f"no rows ({what})")
            return "\n".join(out)
        self.add(name, rows, str, what, rows=True)

    def not_run(self, name: str, what: str) -> None:
        """A macro of a configuration the results did not run (only used under its
        ``\\if`` flag, so never printed): ``--``, not a ``??``."""
        self.count += 1
        self.lines.append(f"\\newcommand{{\\{name}}}{{--}}  % not run: {what}")

    def add_if(self, ran: bool, name: str, getter: Callable[[], object], fmt: Callable = str,
               what: str = "") -> None:
        """:meth:`add` when the configuration ``ran``, else :meth:`not_run`."""
        if ran:
            self.add(name, getter, fmt, what)
        else:
            self.not_run(name, what)

    def flag(self, name: str, getter: Callable[[], bool], what: str) -> None:
        """``\\newif\\if<name>``, true when ``getter()`` is (false when it fails)."""
        try:
            on = bool(getter())
        except ERRORS:
            on = False
        self.lines.append(f"\\newif\\if{name}" + (f"\\{name}true" if on else "") + f"  % {what}")

    def tex(self, sources: str) -> str:
        head = ["% generated by paper/tables/macros.py; do not edit", f"% sources: {sources}"]
        return "\n".join(head + self.lines) + "\n"


def collect(results: Path, bench: Path, sources=SOURCES) -> Macros:
    """Every macro of ``sources`` (module names with a ``paper_macros``)."""
    m = Macros()
    for name in sources:
        importlib.import_module(name).paper_macros(m, Path(results), Path(bench))
    return m


# ------------------------------------------------------------------ provenance
def paper_macros(m: Macros, results: Path, bench: Path) -> None:
    """The tool versions and machine recorded with the results (the first study's
    ``metadata.json`` that exists)."""
    def meta() -> dict:
        for name in ("rules_stats", "passing_metagame", "cfr_convergence", "passing_exact", "demo"):
            path = results / name / "metadata.json"
            if path.exists():
                return read_json(path)
        return read_json(results / "ladder" / "metadata.json")
    m.add("ToolVersions",
          lambda: ", ".join(f"{label} {meta()['versions'][key]}" for key, label in TOOLS
                            if key in meta()["versions"]), tex_text,
          "tool versions recorded with the results")
    m.add("MachineCpus", lambda: meta()["machine"]["cpus"], str, "CPU cores of the machine")

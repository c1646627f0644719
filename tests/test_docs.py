"""The documentation: the site builds with warnings as errors, the API reference
documents exactly the packages' ``__all__`` (the curated surface), every
cross-reference of the guide pages resolves, every page's Python code runs
(``docs_snippets``), and the README stays a short front page."""

from __future__ import annotations

import os
from pathlib import Path
import re
import subprocess
import sys

import pytest

from docs_snippets import (DOCS, ROOT, Block, blocks, experiment_blocks, page_script,
                           pages)

sphinx = pytest.importorskip("sphinx", reason="pip install -e '.[docs]' (sphinx)")

#: The packages whose ``__init__`` ``__all__`` is the documented API (stated here,
#: not read from ``docs/conf.py``, so that the two must agree).
CURATED = ("spiel_game", "solvers", "solvers.cfr", "solvers.beliefs", "experiments",
           "experiments.runner", "experiments.tournament", "experiments.envs",
           "experiments.play")
#: The one page of the API reference outside the curated packages, and its heading.
MODULES_PAGE, MODULES_HEADING = "modules", "not the stable API"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built by ``sphinx-build -W`` (any warning fails the build)."""
    out = tmp_path_factory.mktemp("site")
    r = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q",
                        "-b", "html", "-d", str(out / "doctrees"), str(DOCS), str(out / "html")],
                       cwd=ROOT, capture_output=True, text=True, timeout=900,
                       env={**os.environ, "MPLBACKEND": "Agg"})
    assert r.returncode == 0, f"sphinx-build -W failed:\n{r.stdout[-4000:]}\n{r.stderr[-8000:]}"
    return out / "html"


def test_the_site_builds_with_warnings_as_errors(site):
    for page in pages()[1:]:
        assert (site / f"{page.stem}.html").is_file(), f"no HTML page for {page.name}"
    assert "R10 Scoring a hand" in (site / "rules.html").read_text(), "RULES.md not included"


def _ids(html: str, prefix: str) -> set[str]:
    """The top-level names ``prefix.NAME`` that a page documents."""
    return set(re.findall(rf'id="{re.escape(prefix)}\.([A-Za-z_][A-Za-z0-9_]*)"', html))


@pytest.mark.parametrize("package", CURATED)
def test_the_api_page_of_a_package_documents_exactly_its_all(site, package):
    """Every name of the package's ``__all__`` imports and is on its page (a
    submodule as a link to the modules page); the page documents no other name."""
    import importlib
    import inspect
    mod = importlib.import_module(package)
    names = list(mod.__all__)
    assert names and len(set(names)) == len(names), f"{package}.__all__: {names}"
    html = (site / "api" / "_generated" / f"{package}.html").read_text()
    assert f'id="module-{package}"' in html, f"{package}'s page documents no module"
    modules = (site / "api" / "_generated" / f"{MODULES_PAGE}.html").read_text()
    objects = set()
    for name in names:
        obj = getattr(mod, name)          # a lazily imported name too
        if inspect.ismodule(obj):
            assert f'id="module-{obj.__name__}"' in modules, f"{package}.{name}: no entry"
            assert f"{MODULES_PAGE}.html#module-{obj.__name__}" in html, f"{package}.{name}"
        else:
            objects.add(name)
    assert _ids(html, package) == objects, f"{package}'s page differs from its __all__"


def test_the_api_reference_has_only_the_curated_pages(site):
    """One page per curated package and one page of the internal modules that the
    guides cite, which says so in its heading and holds no curated package."""
    api = site / "api" / "_generated"
    assert {p.stem for p in api.glob("*.html")} == set(CURATED) | {MODULES_PAGE}
    html = (api / f"{MODULES_PAGE}.html").read_text()
    heading = re.search(r"<h1>(.*?)<a", html, re.S).group(1)
    assert MODULES_HEADING in heading, heading
    documented = set(re.findall(r'id="module-([\w.]+)"', html))
    assert documented and not documented & set(CURATED), sorted(documented & set(CURATED))
    api_md = (DOCS / "api.md").read_text()
    assert "__all__" in api_md and "internal" in api_md


#: A cross-reference role (``{func}`x```) that resolved is a link around the code.
_XREF = re.compile(r'<code class="xref py[^"]*"[^>]*><span class="pre">([^<]*)</span>')


def unresolved(html: str) -> list[str]:
    """The Python cross-references of a page that are not links."""
    return [m.group(1) for m in _XREF.finditer(html)
            if not re.search(r"<a [^>]*>\s*$", html[max(0, m.start() - 400):m.start()])]


def test_cross_references_of_the_guide_pages_resolve(site):
    """A module or object that was moved or renamed leaves a dead reference."""
    bad = {p.name: unresolved((site / f"{p.stem}.html").read_text()) for p in pages()[1:]}
    assert not {k: v for k, v in bad.items() if v}, f"unresolved references: {bad}"


def test_an_unresolved_reference_is_found():
    ok = '<a class="reference internal" href="x.html"><code class="xref py py-mod docutils ' \
         'literal notranslate"><span class="pre">spiel_game</span></code></a>'
    dead = '<code class="xref py py-func docutils literal notranslate"><span class="pre">' \
           'gone()</span></code>'
    assert unresolved(ok) == [] and unresolved(ok + dead) == ["gone()"]


# ------------------------------------------------------------------ snippets

def run_page(page, tmp_path, timeout=900) -> subprocess.CompletedProcess:
    script = tmp_path / f"{page.stem}_snippets.py"
    script.write_text(page_script(page))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg",
           "CH_RESULTS": str(tmp_path / "results")}
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("page", [p for p in pages() if page_script(p).strip()],
                         ids=lambda p: p.name)
def test_the_python_code_of_each_page_runs(page, tmp_path):
    r = run_page(page, tmp_path)
    assert r.returncode == 0, f"{page.name}: its code failed:\n{r.stderr[-4000:]}"
    assert r.stdout.strip(), f"{page.name}: its code printed nothing"


def test_the_pages_that_must_show_code_do():
    """The README and the quick start play a hand; the quick start also solves a
    reduced deal and registers a bot; every included example is a real file."""
    for name in ("README.md", "quickstart.md"):
        page = ROOT / name if name == "README.md" else DOCS / name
        code = page_script(page)
        assert "state.returns()" in code and "run_tournament(" in code, name
    quick = page_script(DOCS / "quickstart.md")
    assert "nash_conv(" in quick and "register(" in quick
    for page in pages():
        for b in blocks(page):
            assert b.include is None or b.include.is_file(), f"{page.name}: {b.include}"


def test_opt_outs_state_a_reason():
    for page in pages():
        for b in blocks(page):
            if b.opt_out:
                assert len(b.opt_out.group(1).strip()) >= 10, \
                    f"{page.name}: a block opts out without a reason:\n{b.code[:200]}"


def test_experiment_blocks_are_left_to_the_reproduce_test():
    """Blocks that need the quick profile's results are not in the page scripts;
    tests/experiments/test_notebooks.py runs them after its quick reproduce."""
    assert experiment_blocks(), "no page shows experiments.run/load"
    import importlib.util
    path = Path(__file__).resolve().parent / "experiments" / "test_notebooks.py"
    spec = importlib.util.spec_from_file_location("_docs_test_notebooks", path)
    test_notebooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(test_notebooks)
    assert test_notebooks.readme_snippets() == experiment_blocks()
    for page in pages():
        for code in experiment_blocks():
            assert code not in page_script(page)


def test_a_failing_block_fails_its_page(tmp_path):
    page = tmp_path / "broken.md"
    page.write_text("# Broken\n\n```python\nprint('before')\n```\n\n```bash\nexit 1\n```\n\n"
                    "```python\nraise SystemExit('the second block fails')\n```\n\n"
                    "```python\n# not run by the tests: needs a cluster of machines\n"
                    "raise RuntimeError\n```\n")
    bl = blocks(page)
    assert [bool(b.opt_out) for b in bl] == [False, False, True]
    r = run_page(page, tmp_path, timeout=60)
    assert r.returncode != 0 and "the second block fails" in r.stderr
    assert r.stdout.strip() == "before"
    assert isinstance(bl[0], Block)


# ------------------------------------------------------------------ README

README = (ROOT / "README.md").read_text()


def test_the_readme_is_a_short_front_page():
    lines = README.splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines (at most 150)"
    first_screen = "\n".join(lines[:40])
    for command in ("make reproduce", "make test", "make venv"):
        assert command in first_screen, f"{command!r} is not on the README's first screen"
    assert "@software" in README or "@misc" in README or "@article" in README, "no BibTeX"


def test_the_readme_names_no_issue_or_session():
    found = re.findall(r"(?i)\bissues?[ -]?#?\d+|#\d{1,4}\b|\b20\d\d-\d\d-\d\d\b", README)
    assert not found, f"README.md names issues or dates: {found}"


def test_the_readme_links_to_existing_docs_pages():
    links = re.findall(r"\]\((docs/[^)#]+)", README)
    assert links, "the README links to no docs page"
    for link in links:
        assert (ROOT / link).is_file(), f"README.md links to a missing {link}"

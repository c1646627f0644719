"""The Jupyter play widget (experiments.play.widget): a whole hand played by pressing
its buttons, the record replays to the shown result. ipywidgets is not a test
dependency: the buttons run on a small stand-in with the same API
(``on_click``/``click``, ``observe`` on ``value``), and on the real ipywidgets too
when it is installed."""

from __future__ import annotations

import importlib.util
import sys
import types

import pytest

from experiments.play.widget import PlayWidget, _ipywidgets
from spiel_game import records as R

SMALL = {"players": 3, "deck": "custom", "suits": "HS", "ranks": "QKA", "packs": 2,
         "moon": "choose"}


class _Widget:
    """What the widget uses of ipywidgets: value, description, disabled, children,
    on_click/click, observe(names="value")."""

    def __init__(self, children=(), **kw):
        object.__setattr__(self, "_handlers", {"click": [], "value": []})
        self.children = tuple(children)
        self.description = kw.get("description", "")
        self.disabled = kw.get("disabled", False)
        self.value = kw.get("value", "")

    def __setattr__(self, name, value):
        old = getattr(self, name, None)
        object.__setattr__(self, name, value)
        if name == "value" and old != value:
            for f in self._handlers["value"]:
                f({"name": "value", "old": old, "new": value})

    def on_click(self, f):
        self._handlers["click"].append(f)

    def click(self):
        for f in self._handlers["click"]:
            f(self)

    def observe(self, f, names):
        assert names == "value"
        self._handlers["value"].append(f)


FAKE = types.SimpleNamespace(HTML=_Widget, Button=_Widget, ToggleButton=_Widget,
                             HBox=_Widget, VBox=_Widget)
KINDS = ["stand-in"] + (["ipywidgets"] if importlib.util.find_spec("ipywidgets") else [])


@pytest.mark.parametrize("kind", KINDS)
def test_widget_plays_a_whole_hand(tmp_path, kind):
    widgets = FAKE if kind == "stand-in" else None
    pw = PlayWidget(["heuristic", "random"], seat=2, seed=4, params=SMALL, out=tmp_path,
                    widgets=widgets)
    presses = 0
    while not pw.view["over"]:
        assert presses < 20
        buttons = list(pw.buttons.children)
        if pw.view["pass_count"]:
            assert "choose 1 card(s) to pass" in pw.status.value
            toggles, submit = buttons[:-1], buttons[-1]
            assert len(toggles) == len(pw.view["hand"]) and submit.disabled
            toggles[0].value = True
            assert not submit.disabled
            submit.click()
        else:
            buttons[0].click()
        assert pw.message.value == ""
        presses += 1
    assert presses >= 5 and "Game over" in pw.status.value and "ch-replay" in pw.replay.value
    assert pw.view["record"] == pw.session.record_path.name
    rec = R.read_record(tmp_path / pw.view["record"])
    assert rec.agents == ["heuristic", "random", "human"]
    assert R.replay(rec).returns() == pw.view["returns"]
    assert f"Your result: {pw.view['returns'][2]:g}" in pw.status.value
    first = rec.actions
    pw.widget.children[-1].click()                       # New game: the next deal
    assert not pw.view["over"] and pw.number == 2
    assert pw.session.state.history() != list(first[:len(pw.session.state.history())])


def test_refused_move_shows_a_message(tmp_path):
    pw = PlayWidget(["random"], seat=0, seed=1, params=SMALL, out=None, widgets=FAKE)
    pw.act([999])
    assert "only cards in your hand" in pw.message.value
    assert pw.view["pass_count"] == 1                   # nothing happened


def test_missing_ipywidgets_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "ipywidgets", None)      # as if not installed
    with pytest.raises(ImportError, match="needs ipywidgets, which is not installed \\(extra "
                                          "'notebooks'\\): pip install 'cancellation-hearts"
                                          "\\[notebooks\\]'"):
        _ipywidgets()

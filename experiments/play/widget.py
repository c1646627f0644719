"""The play loop of :mod:`experiments.play` as a Jupyter widget (ipywidgets)::

    from experiments.play.widget import play_widget
    play_widget(["heuristic", "ismcts(iterations=2000)"], players=6)   # last line of a cell

The table is :func:`spiel_game._render.state_to_html` from your seat; your
legal cards are buttons under it (while passing, toggle the cards to pass and
press Pass; when you shot the moon under ``moon="choose"``, two buttons
choose); the agents move in the kernel until you are to act; at the end the
hand's replay is shown and the game is saved as a record, as in the browser
app. Needs ``ipywidgets`` (the ``notebooks`` extra). Text that is not the
rendered table (messages, the record's file name) is HTML-escaped before it
is shown. Seeds are the app's: without ``seed`` a fresh secret key (never
stored), each game's own seed derived from it (every record holds that one);
an agent that fails ends its game with a message, keeping what was played.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from spiel_game._render import card_label

from ._seeds import server_key
from ._session import (DEFAULT_RECORDS, PlayError, PlaySession, check_records_folder,
                      check_settings)

__all__ = ["PlayWidget", "play_widget"]


def _ipywidgets():
    try:
        import ipywidgets
    except ImportError:
        from spiel_game._extras import MissingExtra, install_hint
        raise MissingExtra(f"the play widget needs ipywidgets, which is not installed (extra "
                           f"'notebooks'): {install_hint('notebooks')}; or play in the "
                           f"browser: python -m experiments play --agents ...", "notebooks"
                           ) from None
    return ipywidgets


class PlayWidget:
    """One person against agents in a notebook; ``.widget`` is the ipywidgets box.
    The arguments are those of :func:`experiments.play.create_app`; ``widgets``: the
    ipywidgets module (default: imported). Each "New game" is the app's next game
    number (its own deal and agent seeds)."""

    def __init__(self, agents: Sequence[str], players: int | None = None, seat: int = 0,
                 seed: int | None = None, params: Mapping[str, Any] | None = None,
                 out: str | Path | None = DEFAULT_RECORDS, *, widgets=None):
        self.w = w = widgets or _ipywidgets()
        self._checked = check_settings(agents, players, seat, seed, params)
        check_records_folder(out)
        self._key = server_key(seed)
        self.seat, self.seed, self.out = seat, seed, out
        self.number = 0
        self.status, self.message = w.HTML(), w.HTML()
        self.table, self.replay = w.HTML(), w.HTML()
        self.buttons = w.HBox([])
        new = w.Button(description="New game")
        new.on_click(lambda _: self.new_game())
        self.widget = w.VBox([self.status, self.buttons, self.message, self.table, self.replay,
                              new])
        self.session: PlaySession | None = None
        self.selected: list[int] = []           # indices into the hand while passing
        self.new_game()

    def _ipython_display_(self):
        from IPython.display import display
        display(self.widget)

    def new_game(self) -> None:
        """Start the next game."""
        agents, params, _ = self._checked
        self.session = PlaySession(agents, params, seat=self.seat, seed=self.seed,
                                   number=self.number, out=self.out, _checked=self._checked,
                                   _key=self._key)
        self.number += 1
        self.message.value = ""
        self.refresh()

    def act(self, actions: list[int]) -> None:
        """Send your actions (as the buttons do); a refused move shows its message."""
        try:
            self.session.move(actions)
            self.message.value = ""
        except PlayError as e:
            self.message.value = f"<span style='color:#a00'>{html.escape(str(e))}</span>"
        self.refresh()

    def toggle(self, index: int) -> None:
        """Select or unselect the card ``index`` of your hand for passing."""
        v = self.view
        if index in self.selected:
            self.selected.remove(index)
        elif len(self.selected) < v["pass_count"]:
            self.selected.append(index)
        self._pass_button.disabled = len(self.selected) != v["pass_count"]

    def submit_pass(self) -> None:
        """Pass the selected cards."""
        self.act([self.view["hand"][i] for i in self.selected])

    def refresh(self) -> None:
        """Redraw from the session's view."""
        w = self.w
        self.view = v = self.session.view()
        self.selected = []
        self.table.value = v["html"]
        self.replay.value = v.get("replay_html", "")
        buttons = []
        if v["error"]:
            self.status.value = (f"This game ended early: {html.escape(v['error'])}"
                                 + (f"; saved as {html.escape(v['record'])}" if v["record"]
                                    else ""))
        elif v["over"]:
            r = v["returns"]
            self.status.value = (f"Game over. Your result: {r[v['seat']]:g} (returns "
                                 f"{', '.join(f'{x:g}' for x in r)})"
                                 + (f"; saved as {html.escape(v['record'])}" if v["record"]
                                    else "")
                                 + (f"; {html.escape(v['record_error'])}" if v["record_error"]
                                    else ""))
        elif v["moon"]:
            self.status.value = "You shot the moon: choose"
            for m in v["moon"]:
                b = w.Button(description=m["label"])
                b.on_click(lambda _, a=m["action"]: self.act([a]))
                buttons.append(b)
        elif v["pass_count"]:
            self.status.value = f"You are P{v['seat']}: choose {v['pass_count']} card(s) to pass"
            for i, c in enumerate(v["hand"]):
                b = w.ToggleButton(description=card_label(c), value=False)
                b.observe(lambda _, i=i: self.toggle(i), names="value")
                buttons.append(b)
            self._pass_button = w.Button(description="Pass", disabled=True)
            self._pass_button.on_click(lambda _: self.submit_pass())
            buttons.append(self._pass_button)
        else:
            self.status.value = f"You are P{v['seat']}: play a card"
            for x in v["legal"]:
                b = w.Button(description=x["label"])
                b.on_click(lambda _, a=x["action"]: self.act([a]))
                buttons.append(b)
        self.buttons.children = tuple(buttons)


def play_widget(agents: Sequence[str], players: int | None = None, seat: int = 0,
                seed: int | None = None, params: Mapping[str, Any] | None = None,
                out: str | Path | None = DEFAULT_RECORDS) -> PlayWidget:
    """A :class:`PlayWidget` (displays itself as the last expression of a cell)."""
    return PlayWidget(agents, players, seat, seed, params, out)

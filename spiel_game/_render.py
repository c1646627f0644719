"""Pictures of a state: text (terminal) and HTML (notebooks, browsers).

``str(state)`` is :func:`state_to_text`; ``state._repr_html_`` (installed by
:func:`install_repr_html`) is :func:`state_to_html`. :func:`hand_replay_html`
and :func:`render_text_replay` show the current hand trick by trick.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from . import cards as C
from . import _engine as E

__all__ = ["state_to_text", "state_to_html", "hand_replay_html", "render_text_replay",
           "install_repr_html", "card_label"]

_PHASES = {E.PH_DEAL: "deal", E.PH_PASS: "pass", E.PH_PLAY: "play",
           E.PH_MOON: "moon choice", E.PH_OVER: "over"}


def state_to_text(state) -> str:
    """Everything in the state: unique for distinct engine states."""
    P, s, r = state._P, state._s, state.rules
    n = r.players
    lines = [f"Cancellation Hearts: {r.describe()}"]
    lines.append(
        f"Hand {int(s[E.S_HANDNO])}"
        f", dealer P{int(s[E.S_DEALER])}, pass offset {int(s[E.S_PASSOFF])} x {int(P[E.P_PASS])}"
        f", phase {_PHASES[int(s[E.S_PHASE])]}"
        + (f", P{int(s[E.S_CUR])} to move"
           if s[E.S_PHASE] in (E.PH_PASS, E.PH_PLAY, E.PH_MOON) else "")
        + f", cards dealt {int(s[E.S_DEALT])}, hearts broken {'yes' if s[E.S_BROKEN] else 'no'}")
    pc = int(P[E.P_PASS])
    for q in range(n):
        hand = C.cards_to_string(E.hand(P, s, q))
        dealt = C.cards_to_string(E.dealt_hand(P, s, q))
        line = f"P{q}: hand [{hand}] dealt [{dealt}]"
        if pc:
            seq = [int(x) for x in E.pass_choices(P, s, q)[:pc] if x >= 0]
            line += " passed [" + " ".join(C.card_to_string(c) for c in seq) + "]"
        lines.append(line)
    if r.kitty_size:
        kit = C.cards_to_string(E.kitty(P, s))
        lines.append(f"Kitty [{kit}]" + (" (with the pot)" if s[E.S_KITTY_IN_POT] else ""))
    for t in range(r.hand_size):
        lead = int(E.trick_leaders(P, s)[t])
        if lead < 0:
            break
        order = [(lead + i) % n for i in range(n)]
        cards = [int(E.trick_cards(P, s, t)[q]) for q in order]
        played = [f"P{q}:{C.card_to_string(c)}" for q, c in zip(order, cards) if c >= 0]
        w = int(E.trick_winners(P, s)[t])
        res = {E.TW_NONE: "in progress", E.TW_VOID: "void, set aside",
               E.TW_DISCARDED: "void, discarded"}.get(w, f"won by P{w}")
        lines.append(f"Trick {t + 1}: " + " ".join(played) + f" -> {res}")
    pot = C.cards_to_string(E.pot(P, s))
    lines.append(f"Set aside: [{pot}] ({int(s[E.S_POTPTS])} points in the pot)")
    pts = " ".join(f"P{q}:{int(E.points(P, s)[q])}" for q in range(n))
    lines.append(f"Points this hand: {pts}")
    if s[E.S_PHASE] == E.PH_OVER or r.is_match:
        hp = " ".join(f"P{q}:{int(E.hand_points(P, s)[q])}" for q in range(n))
        sc = " ".join(f"P{q}:{int(E.scores(P, s)[q])}" for q in range(n))
        lines.append(f"Last hand after moon rule: {hp}; scores: {sc}")
        if s[E.S_SHOOTER] >= 0:
            lines.append(f"P{int(s[E.S_SHOOTER])} shot the moon")
    return "\n".join(lines)


# ------------------------------------------------------------------ tricks
@dataclass(frozen=True)
class _Trick:
    """One trick of the current hand, resolved for display (R7, R8)."""

    index: int                    # 0-based trick number
    leader: int
    order: tuple[int, ...]        # seats in playing order, the leader first
    cards: tuple[int, ...]        # card id per seat, -1 if not played yet
    cancelled: frozenset          # seats whose card has an identical copy in the trick
    best: int                     # seat of the highest uncancelled card of the suit led, -1
    result: int                   # engine L_TWIN value: seat, TW_NONE, TW_VOID, TW_DISCARDED
    points: int                   # points of the cards in the trick
    pot_in: int                   # points of set-aside cards carried into the trick
    kitty_in: bool                # the kitty (R3 A) travels with the pot into this trick
    taken: int                    # points taken (won) or thrown away (discarded) with it

    @property
    def complete(self) -> bool:
        return self.result != E.TW_NONE

    @property
    def status(self) -> str:
        return {E.TW_NONE: "in-progress", E.TW_VOID: "void",
                E.TW_DISCARDED: "discarded"}.get(self.result, "won")


def _kitty_points(state) -> int:
    s, P = state._s, state._P
    return int(np.dot(E.kitty(P, s), E.card_points(P)))


def _tricks(state) -> list[_Trick]:
    """The tricks of the current hand played so far, in order."""
    P, s, r = state._P, state._s, state.rules
    n = r.players
    kitty_pts = _kitty_points(state) if r.kitty_size else 0
    table = E.card_points(P)
    kitty_with_pot = r.kitty_size > 0
    pot = 0
    out = []
    for t in range(r.hand_size):
        lead = int(E.trick_leaders(P, s)[t])
        if lead < 0:
            break
        order = tuple((lead + i) % n for i in range(n))
        cards = tuple(int(c) for c in E.trick_cards(P, s, t))
        played = [c for c in cards if c >= 0]
        cancelled = frozenset(q for q in range(n)
                              if cards[q] >= 0 and played.count(cards[q]) > 1)
        led = int(C.SUIT_OF[cards[lead]])
        best, best_order = -1, -1
        for q in order:
            c = cards[q]
            if c < 0 or q in cancelled:
                continue
            if C.SUIT_OF[c] == led and C.ORDER_OF[c] > best_order:
                best, best_order = q, int(C.ORDER_OF[c])
        pts = int(sum(int(table[c]) for c in played))
        w = int(E.trick_winners(P, s)[t])
        pot_in, kitty_in, taken = pot, kitty_with_pot, 0
        if w >= 0 or w == E.TW_DISCARDED:
            taken = pts + pot + (kitty_pts if kitty_with_pot else 0)
            pot, kitty_with_pot = 0, False
        elif w == E.TW_VOID:
            pot += pts
        out.append(_Trick(t, lead, order, cards, cancelled, best, w, pts, pot_in,
                          kitty_in, taken))
    return out


def _result_text(tr: _Trick, name=C.card_to_string) -> str:
    if tr.result == E.TW_NONE:
        return "in progress"
    if tr.result == E.TW_VOID:
        return "void: set aside (R8)"
    if tr.result == E.TW_DISCARDED:
        return "void last trick: discarded (R8 A)"
    if tr.best < 0:
        return f"void last trick: won by its leader P{tr.result} (R8 B)"
    return f"won by P{tr.result} with {name(tr.cards[tr.best])}"


def _points_text(tr: _Trick) -> str:
    """What the trick's points did: taken, set aside or discarded."""
    extras = []
    if tr.pot_in:
        extras.append(f"{tr.pot_in} set aside")
    if tr.kitty_in:
        extras.append("the kitty")
    tail = f" (trick {tr.points} + " + " + ".join(extras) + ")" if extras else ""
    if tr.result == E.TW_NONE:
        return ""
    if tr.result == E.TW_VOID:
        return f"{tr.points} set aside"
    if tr.result == E.TW_DISCARDED:
        return f"{tr.taken} discarded" + tail
    return f"P{tr.result} takes {tr.taken}" + tail


def _kitty_status(state, tricks) -> tuple[str, int]:
    """('face-down' | 'taken' | 'discarded', seat that took it or -1)."""
    s = state._s
    if s[E.S_PHASE] == E.PH_DEAL or s[E.S_KITTY_IN_POT]:
        return "face-down", -1
    for tr in tricks:
        if tr.result >= 0:
            return "taken", tr.result
        if tr.result == E.TW_DISCARDED:
            return "discarded", -1
    return "face-down", -1


def _seat_order_cards(counts) -> list[list[int]]:
    """Card ids of a count vector grouped by suit (C D H S), ascending, copies repeated."""
    groups = []
    for su in range(4):
        ids = sorted((c for c in range(E.K) if C.SUIT_OF[c] == su), key=lambda c: C.ORDER_OF[c])
        groups.append([c for c in ids for _ in range(int(counts[c]))])
    return groups


# -------------------------------------------------------------------- html
_CSS = """
.ch-root{font-family:"DejaVu Sans","Segoe UI",system-ui,sans-serif;font-size:14px;color:#222;
 background:#fff;padding:8px;line-height:1.35;max-width:1180px}
.ch-root .ch-title{font-weight:700;font-size:15px}
.ch-root .ch-status{color:#444;margin:2px 0 8px 0}
.ch-root .ch-section{margin:8px 0}
.ch-root .ch-section-title{font-weight:700;margin-bottom:3px}
.ch-root .ch-seats{display:flex;flex-wrap:wrap;gap:8px}
.ch-root .ch-seat{border:1px solid #bbb;border-radius:6px;padding:5px 8px;min-width:250px;
 background:#fafaf6}
.ch-root .ch-seat.ch-to-move{border:3px solid #1a73e8;background:#e8f0fe;padding:3px 6px}
.ch-root .ch-seat-name{font-weight:700}
.ch-root .ch-badge{font-size:11px;border-radius:8px;padding:0 6px;margin-left:4px;color:#fff}
.ch-root .ch-dealer-badge{background:#555}
.ch-root .ch-move-badge{background:#1a73e8}
.ch-root .ch-seat-points{float:right;color:#444}
.ch-root .ch-suit-row{min-height:24px}
.ch-root .ch-suit-symbol{display:inline-block;width:16px;font-size:15px}
.ch-root .ch-card{display:inline-block;min-width:28px;padding:1px 3px;margin:1px;
 border:1px solid #999;border-radius:4px;background:#fff;text-align:center;font-weight:700}
.ch-root .ch-red{color:#d00000}
.ch-root .ch-black{color:#111}
.ch-root .ch-card.cancelled{text-decoration:line-through;text-decoration-thickness:2px;
 text-decoration-color:#111;background:#e4e4e4;border-style:dashed}
.ch-root .ch-card.winning{border:2px solid #188038;box-shadow:0 0 0 2px #b7e1c1}
.ch-root .ch-card.ch-face-down{background:#3355cc;color:#fff;border-color:#223388}
.ch-root .ch-card.ch-empty{color:#aaa;border-style:dotted;font-weight:400}
.ch-root .ch-trick-slots{display:flex;flex-wrap:wrap;gap:6px}
.ch-root .ch-slot{text-align:center;border:1px solid #ddd;border-radius:4px;padding:2px 6px}
.ch-root .ch-slot.ch-lead{border-color:#888}
.ch-root .ch-result{margin-top:3px;color:#333}
.ch-root table{border-collapse:collapse}
.ch-root th,.ch-root td{border:1px solid #ccc;padding:2px 6px;text-align:center}
.ch-root td.ch-lead{background:#f3f3e8}
.ch-root .ch-legend{color:#555;font-size:12px}
"""


_SEP = " \u00b7 "


def _plural(k: int, word: str) -> str:
    return f"{k} {word}" + ("" if k == 1 else "s")


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def card_label(c: int) -> str:
    """A card as shown to people: rank (10 for T) and suit symbol, e.g. ``Q\u2660``."""
    code = C.card_to_string(int(c))
    return ("10" if code[0] == "T" else code[0]) + C.SUIT_SYMBOLS[code[1]]


def _card_html(c: int, classes=()) -> str:
    code = C.card_to_string(int(c))
    cls = ["ch-card", "ch-red" if code[1] in "HD" else "ch-black", *classes]
    title = "joker (zero of clubs)" if c == C.JOKER else code
    if "cancelled" in classes:
        title += ", cancelled by an identical card (R7)"
    if "winning" in classes:
        title += ", winning"
    return (f'<span class="{_e(" ".join(cls))}" data-card="{_e(code)}" '
            f'title="{_e(title)}">{_e(card_label(c))}</span>')


def _face_down_html() -> str:
    return '<span class="ch-card ch-face-down" data-card="?" title="face down">?</span>'


def _empty_html() -> str:
    return '<span class="ch-card ch-empty" data-card="" title="not played yet">&middot;</span>'


def _trick_card_html(tr: _Trick, q: int) -> str:
    c = tr.cards[q]
    if c < 0:
        return _empty_html()
    classes = []
    if q in tr.cancelled:
        classes.append("cancelled")
    if q == tr.best:
        classes.append("winning")
    return _card_html(c, classes)


def _wrap(body: str, cls: str, attrs: dict) -> str:
    a = " ".join(f'{k}="{_e(v)}"' for k, v in attrs.items())
    return (f'<div class="ch-root {cls}" {a}><style>{_CSS}</style>{body}</div>')


def _scores_table(state) -> str:
    P, s, r = state._P, state._s, state.rules
    n = r.players
    over = s[E.S_PHASE] == E.PH_OVER
    head = "".join(f'<th data-seat="{q}">P{q}</th>' for q in range(n))
    rows = ['<tr class="ch-points-row"><th>points this hand</th>' + "".join(
        f'<td class="ch-points" data-seat="{q}">{int(E.points(P, s)[q])}</td>'
        for q in range(n)) + "</tr>"]
    if over or r.is_match:
        label = "hand result (moon rule)" if over and not r.is_match else "last hand (moon rule)"
        rows.append(f'<tr class="ch-handpts-row"><th>{_e(label)}</th>' + "".join(
            f'<td class="ch-handpts" data-seat="{q}">{int(E.hand_points(P, s)[q])}</td>'
            for q in range(n)) + "</tr>")
    if r.is_match:
        rows.append(f'<tr class="ch-match-row"><th>match score (target {r.target_score})</th>'
                    + "".join(f'<td class="ch-score" data-seat="{q}">'
                              f'{int(E.scores(P, s)[q])}</td>' for q in range(n)) + "</tr>")
    shooter = ""
    if s[E.S_SHOOTER] >= 0 and (over or s[E.S_PHASE] == E.PH_MOON):
        shooter = (f'<div class="ch-moon" data-seat="{int(s[E.S_SHOOTER])}">'
                   f'P{int(s[E.S_SHOOTER])} shot the moon (R10)</div>')
    return (f'<div class="ch-section ch-scores-section"><div class="ch-section-title">Points</div>'
            f'<table class="ch-scores"><tr><th></th>{head}</tr>{"".join(rows)}</table>'
            f'{shooter}</div>')


def state_to_html(state, viewer: int | None = None) -> str:
    """A self-contained HTML fragment (inline CSS) picturing ``state``.

    ``viewer`` (a seat, or None for everything): until the hand is over, the
    other seats' hands are shown face down (``data-hidden="true"``) and their
    passed cards are not shown, as that seat sees the table.

    Shows every seat's hand by suit (seat to move: ``ch-to-move``; dealer:
    ``ch-dealer``), the current trick (or the last complete one) with
    cancelled cards (class ``cancelled``, R7) and the winning card (class
    ``winning``), the set-aside pot (R8), the kitty (face down until taken,
    R3 A), points this hand and, in a match, the scores. Every card is a
    ``span.ch-card`` with ``data-card`` in R2 notation (``"QS"``; ``"?"`` face
    down); seat-related elements carry ``data-seat``.
    """
    P, s, r = state._P, state._s, state.rules
    n = r.players
    ph = int(s[E.S_PHASE])
    moving = int(s[E.S_CUR]) if ph in (E.PH_PASS, E.PH_PLAY, E.PH_MOON) else -1
    dealer = int(s[E.S_DEALER])
    hand_no = int(s[E.S_HANDNO]) + (0 if ph == E.PH_OVER else 1)
    tricks = _tricks(state)
    parts = [f'<div class="ch-title">Cancellation Hearts: {_e(r.describe())}</div>']
    status = [f"hand {hand_no}", f"dealer P{dealer}", f"phase: {_PHASES[ph]}"]
    if moving >= 0:
        status.append(f"P{moving} to move")
    status.append("hearts broken" if s[E.S_BROKEN] else "hearts not broken")
    parts.append(f'<div class="ch-status">{_e(_SEP.join(status))}</div>')

    # Seats and hands.
    pc = int(P[E.P_PASS])
    seats = []
    for q in range(n):
        cls = ["ch-seat"] + (["ch-to-move"] if q == moving else []) + (
            ["ch-dealer"] if q == dealer else [])
        counts = E.hand(P, s, q)
        groups = _seat_order_cards(counts)
        badges = ""
        if q == dealer:
            badges += '<span class="ch-badge ch-dealer-badge" title="dealer">dealer</span>'
        if q == moving:
            badges += '<span class="ch-badge ch-move-badge">to move</span>'
        rows = []
        hidden = viewer is not None and q != viewer and ph != E.PH_OVER
        if hidden:
            rows.append(_face_down_html() * int(counts.sum()))
        for su, g in ([] if hidden else zip(C.SUITS, groups)):
            if su not in r.suits and not g:
                continue                                 # a reduced deck (custom suits)
            sym = C.SUIT_SYMBOLS[su]
            color = "ch-red" if su in "HD" else "ch-black"
            rows.append(f'<div class="ch-suit-row" data-suit="{su}">'
                        f'<span class="ch-suit-symbol {color}">{_e(sym)}</span>'
                        + "".join(_card_html(c) for c in g) + "</div>")
        passed = ""
        if pc:
            seq = [int(x) for x in E.pass_choices(P, s, q)[:pc] if x >= 0]
            if seq and ph != E.PH_OVER and not hidden:
                passed = (f'<div class="ch-passed" data-seat="{q}">passed: '
                          + "".join(_card_html(c) for c in seq) + "</div>")
        seats.append(
            f'<div class="{" ".join(cls)}" data-seat="{q}" '
            f'data-to-move="{str(q == moving).lower()}" data-dealer="{str(q == dealer).lower()}">'
            f'<div class="ch-seat-head"><span class="ch-seat-name">P{q}</span>{badges}'
            f'<span class="ch-seat-points" data-seat="{q}">'
            f'{_plural(int(E.points(P, s)[q]), "pt")}</span></div>'
            f'<div class="ch-hand" data-seat="{q}" data-count="{int(counts.sum())}" '
            f'data-hidden="{str(hidden).lower()}">'
            + "".join(rows) + f"</div>{passed}</div>")
    parts.append('<div class="ch-section"><div class="ch-section-title">Hands</div>'
                 '<div class="ch-seats">' + "".join(seats) + "</div></div>")

    # The current trick, or the last complete one.
    if tricks:
        tr = tricks[-1]
        title = (f"Trick {tr.index + 1} (in progress)" if not tr.complete
                 else f"Last trick: trick {tr.index + 1}")
        slots = []
        for q in tr.order:
            lead = " ch-lead" if q == tr.leader else ""
            slots.append(f'<div class="ch-slot{lead}" data-seat="{q}">'
                         f'<div class="ch-slot-seat">P{q}{" (lead)" if lead else ""}</div>'
                         f"{_trick_card_html(tr, q)}</div>")
        result = _result_text(tr, card_label)
        if tr.complete:
            result += "; " + _points_text(tr)
        elif tr.best >= 0:
            result = f"P{tr.best} is winning with {card_label(tr.cards[tr.best])}"
        elif tr.cancelled:
            result = "every card of the suit led is cancelled so far"
        parts.append(
            f'<div class="ch-section ch-trick" data-trick="{tr.index + 1}" '
            f'data-status="{tr.status}" data-leader="{tr.leader}">'
            f'<div class="ch-section-title">{_e(title)}</div>'
            f'<div class="ch-trick-slots">{"".join(slots)}</div>'
            f'<div class="ch-result">{_e(result)}</div></div>')
    else:
        parts.append('<div class="ch-section ch-trick" data-trick="0" data-status="none">'
                     '<div class="ch-section-title">Trick</div>'
                     '<div class="ch-result">no card played yet</div></div>')

    # The set-aside pot (R8) and the kitty (R3 A).
    pot_counts = E.pot(P, s)
    pot_cards = [c for g in _seat_order_cards(pot_counts) for c in g]
    pot_pts = int(sum(int(E.card_points(P)[c]) for c in pot_cards))
    kit_note = ""
    if r.kitty_size and s[E.S_KITTY_IN_POT]:
        kit_note = " + the kitty (face down)"
    parts.append(
        f'<div class="ch-section ch-pot" data-points="{pot_pts}" data-cards="{len(pot_cards)}">'
        f'<div class="ch-section-title">Set aside (void tricks, R8)</div>'
        + ("".join(_card_html(c) for c in pot_cards) if pot_cards else
           '<span class="ch-pot-empty">nothing set aside:</span>')
        + f' <span class="ch-pot-points">{_plural(pot_pts, "point")}'
          f'{_e(kit_note)}</span></div>')
    if r.kitty_size:
        kstate, kseat = _kitty_status(state, tricks)
        kcounts = E.kitty(P, s)
        if kstate == "face-down":
            cards_html = _face_down_html() * r.kitty_size
            note = f"{r.kitty_size} cards face down, for the winner of the first trick won"
        else:
            cards_html = "".join(_card_html(c) for g in _seat_order_cards(kcounts) for c in g)
            kp = _kitty_points(state)
            note = (f"taken by P{kseat}" if kstate == "taken" else "discarded") + \
                f" ({_plural(kp, 'point')})"
        parts.append(
            f'<div class="ch-section ch-kitty" data-state="{kstate}" data-seat="{kseat}">'
            f'<div class="ch-section-title">Kitty (R3 A)</div>{cards_html} '
            f'<span class="ch-kitty-note">{_e(note)}</span></div>')

    parts.append(_scores_table(state))
    return _wrap("".join(parts), "ch-state",
                 {"data-phase": _PHASES[ph], "data-players": n, "data-to-move": moving,
                  "data-dealer": dealer})


def hand_replay_html(state) -> str:
    """The current (finished or partial) hand trick by trick, as an HTML table.

    One ``tr.ch-trick-row`` per trick (``data-trick`` 1-based, ``data-leader``,
    ``data-result`` in won/void/discarded/in-progress, ``data-winner``): each
    seat's card in its ``td[data-seat]`` (``cancelled``/``winning`` marked),
    the result and the points taken, set aside or discarded.
    """
    P, s, r = state._P, state._s, state.rules
    n = r.players
    tricks = _tricks(state)
    head = ("<tr><th>trick</th><th>leader</th>"
            + "".join(f'<th data-seat="{q}">P{q}</th>' for q in range(n))
            + "<th>result</th><th>points</th></tr>")
    rows = []
    for tr in tricks:
        cells = "".join(
            f'<td class="ch-play{" ch-lead" if q == tr.leader else ""}" data-seat="{q}">'
            f"{_trick_card_html(tr, q)}</td>" for q in range(n))
        winner = tr.result if tr.result >= 0 else -1
        rows.append(
            f'<tr class="ch-trick-row" data-trick="{tr.index + 1}" data-leader="{tr.leader}" '
            f'data-result="{tr.status}" data-winner="{winner}" data-points="{tr.points}" '
            f'data-taken="{tr.taken}"><td>{tr.index + 1}</td><td>P{tr.leader}</td>{cells}'
            f'<td class="ch-result">{_e(_result_text(tr, card_label))}</td>'
            f'<td class="ch-taken">{_e(_points_text(tr))}</td></tr>')
    if not rows:
        rows.append(f'<tr class="ch-no-tricks"><td colspan="{n + 4}">no trick played yet</td></tr>')
    foot = ('<tr class="ch-points-row"><th colspan="2">points this hand</th>'
            + "".join(f'<td class="ch-points" data-seat="{q}">{int(E.points(P, s)[q])}</td>'
                      for q in range(n)) + '<td colspan="2"></td></tr>')
    legend = ('<div class="ch-legend">struck through: cancelled by an identical card (R7); '
              'green frame: the winning card</div>')
    body = (f'<div class="ch-title">Hand replay: {_e(r.describe())}</div>'
            f'<table class="ch-replay">{head}{"".join(rows)}{foot}</table>{legend}')
    return _wrap(body, "ch-replay-root", {"data-tricks": len(tricks), "data-players": n})


def render_text_replay(state) -> str:
    """The current hand trick by trick, for terminals.

    Cards are listed in playing order; ``[9H]`` marks a card cancelled by an
    identical copy (R7) and ``TS*`` the winning card.
    """
    P, s, r = state._P, state._s, state.rules
    n = r.players
    lines = [f"Hand replay: {r.describe()}",
             "  (TS* wins the trick; [9H] is cancelled by an identical card, R7)"]
    tricks = _tricks(state)
    for tr in tricks:
        played = []
        for q in tr.order:
            c = tr.cards[q]
            if c < 0:
                continue
            code = C.card_to_string(c)
            if q in tr.cancelled:
                code = f"[{code}]"
            elif q == tr.best:
                code += "*"
            played.append(f"P{q}:{code}")
        res = _result_text(tr)
        pts = _points_text(tr)
        lines.append(f"Trick {tr.index + 1:>2}: " + " ".join(played)
                     + f" -> {res}" + (f"; {pts}" if pts else ""))
    if not tricks:
        lines.append("No trick played yet.")
    lines.append("Points this hand: " + " ".join(
        f"P{q}:{int(E.points(P, s)[q])}" for q in range(n)))
    if r.is_match:
        lines.append("Match scores: " + " ".join(
            f"P{q}:{int(E.scores(P, s)[q])}" for q in range(n)))
    return "\n".join(lines)


def install_repr_html(state_cls) -> None:
    """Give ``state_cls`` a Jupyter ``_repr_html_`` that shows :func:`state_to_html`."""
    state_cls._repr_html_ = lambda self: state_to_html(self)

"""Text pictures of a state (terminal). ``str(state)`` is :func:`state_to_text`."""

from __future__ import annotations

from . import cards as C
from . import engine as E

__all__ = ["state_to_text"]

_PHASES = {E.PH_DEAL: "deal", E.PH_PASS: "pass", E.PH_PLAY: "play",
           E.PH_MOON: "moon choice", E.PH_OVER: "over"}


def _vec(s, off, n=E.K):
    return s[off:off + n]


def state_to_text(state) -> str:
    """Everything in the state: unique for distinct engine states."""
    P, s, r = state._P, state._s, state.rules
    n, K = r.players, E.K
    lines = [f"Cancellation Hearts: {r.describe()}"]
    lines.append(
        f"Hand {int(s[E.S_HANDNO]) + (0 if s[E.S_PHASE] != E.PH_OVER else 0)}"
        f", dealer P{int(s[E.S_DEALER])}, pass offset {int(s[E.S_PASSOFF])} x {int(P[E.P_PASS])}"
        f", phase {_PHASES[int(s[E.S_PHASE])]}"
        + (f", P{int(s[E.S_CUR])} to move" if s[E.S_PHASE] in (E.PH_PASS, E.PH_PLAY, E.PH_MOON) else "")
        + f", cards dealt {int(s[E.S_DEALT])}, hearts broken {'yes' if s[E.S_BROKEN] else 'no'}")
    pc = int(P[E.P_PASS])
    for q in range(n):
        hand = C.cards_to_string(_vec(s, P[E.L_HANDS] + q * K))
        dealt = C.cards_to_string(_vec(s, P[E.L_DEALT_HANDS] + q * K))
        line = f"P{q}: hand [{hand}] dealt [{dealt}]"
        if pc:
            seq = [int(x) for x in _vec(s, P[E.L_PASSSEQ] + q * pc, pc) if x >= 0]
            line += " passed [" + " ".join(C.card_to_string(c) for c in seq) + "]"
        lines.append(line)
    if r.kitty_size:
        kit = C.cards_to_string(_vec(s, P[E.L_KITTY]))
        lines.append(f"Kitty [{kit}]" + (" (with the pot)" if s[E.S_KITTY_IN_POT] else ""))
    t_now = int(s[E.S_TRICK])
    for t in range(r.hand_size):
        lead = int(s[P[E.L_TLEAD] + t])
        if lead < 0:
            break
        order = [(lead + i) % n for i in range(n)]
        cards = [int(s[P[E.L_TCARDS] + t * n + q]) for q in order]
        played = [f"P{q}:{C.card_to_string(c)}" for q, c in zip(order, cards) if c >= 0]
        w = int(s[P[E.L_TWIN] + t])
        res = {E.TW_NONE: "in progress", E.TW_VOID: "void, set aside",
               E.TW_DISCARDED: "void, discarded"}.get(w, f"won by P{w}")
        lines.append(f"Trick {t + 1}: " + " ".join(played) + f" -> {res}")
    pot = C.cards_to_string(_vec(s, P[E.L_POT]))
    lines.append(f"Set aside: [{pot}] ({int(s[E.S_POTPTS])} points in the pot)")
    pts = " ".join(f"P{q}:{int(s[P[E.L_POINTS] + q])}" for q in range(n))
    lines.append(f"Points this hand: {pts}")
    if s[E.S_PHASE] == E.PH_OVER or r.is_match:
        hp = " ".join(f"P{q}:{int(s[P[E.L_HANDPTS] + q])}" for q in range(n))
        sc = " ".join(f"P{q}:{int(s[P[E.L_SCORES] + q])}" for q in range(n))
        lines.append(f"Last hand after moon rule: {hp}; scores: {sc}")
        if s[E.S_SHOOTER] >= 0:
            lines.append(f"P{int(s[E.S_SHOOTER])} shot the moon")
    return "\n".join(lines)

"""Game parameter errors in words: did-you-mean for names and choices, values
echoed with their type, rule clauses named with their titles (RULES.md)."""

from __future__ import annotations

import re

import pytest

import spiel_game
from spiel_game._rules import CLAUSES, GameParameterError, RuleSet, clause


def error_of(params) -> str:
    with pytest.raises(GameParameterError) as info:
        RuleSet.from_params(params)
    return str(info.value)


def test_unknown_names_get_the_closest_allowed_name():
    msg = error_of({"player": 6})
    assert msg.startswith("unknown parameter 'player' of python_cancellation_hearts; "
                          "did you mean 'players'? allowed: deal, deck, ")
    assert "void_last_trick" in msg
    two = error_of({"player": 6, "moonpoints": 3})
    assert "did you mean 'moonpoints' -> 'moon_points', 'player' -> 'players'?" in two
    assert "did you mean" not in error_of({"zzzzzz": 1})


def test_values_are_echoed_with_their_type():
    msg = error_of({"players": "6"})
    assert "got players='6' (str) (write players=6, without quotes); allowed: 2..11" in msg
    assert "got deck=2 (int)" in error_of({"deck": 2})
    assert "got players=6.0 (float)" in error_of({"players": 6.0})


def test_choices_get_a_suggestion():
    msg = error_of({"deck": "kity"})
    assert msg == ("parameter deck='kity' is not allowed; did you mean 'kitty'? allowed: "
                   "'balanced', 'kitty', 'classic', 'custom'")


def test_rule_clauses_come_with_their_words():
    assert clause("R1", "R3 B") == "R1 (players and seating), R3 B (the balanced deck)"
    assert error_of({"players": 13}).startswith(
        "R1 (players and seating), R3 B (the balanced deck): players=13 is impossible for "
        "deck='balanced'; allowed 5..11")
    assert error_of({"deck": "kitty", "packs": 1}).startswith("R3 A (the kitty deck): packs=1")


def test_no_user_facing_message_has_a_bare_clause_id():
    """Every clause id in a message string of _rules.py and game.py is followed by its
    words: ``R7 (playing a trick): ...``, not ``R7: ...`` or ``(R1/R3 B)``."""
    from pathlib import Path
    root = Path(spiel_game.__file__).parent
    bare = re.compile(r"""(?<!["'])["'](R\d+(?: [AB])?)(?::|/R)""")
    for name in ("_rules.py", "game.py"):
        for i, line in enumerate((root / name).read_text().splitlines(), 1):
            assert not bare.search(line), f"{name}:{i}: {line.strip()}"
    assert set(CLAUSES) >= {f"R{i}" for i in range(1, 12)}


def test_move_errors_name_the_clause_in_words():
    game = spiel_game.load(players=6)
    st = game.new_initial_state()
    while st.is_chance_node():
        st.apply_action(st.legal_actions()[0])
    bad = next(a for a in range(52) if a not in st.legal_actions())
    with pytest.raises(ValueError, match=r"R\d+ \([a-z][^)]*\): "):
        st.apply_action(bad)


def test_tournament_game_names_get_a_suggestion(tmp_path, capsys):
    from experiments.tournament import main
    rc = main(["--agents", "random", "--game", '{"player": 6}', "--deals", "1",
               "--out", str(tmp_path), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 1
    assert "unknown parameter 'player'" in err and "did you mean 'players'?" in err
    assert "'6'" not in err                    # not echoed back as a string
    assert not any(tmp_path.iterdir())

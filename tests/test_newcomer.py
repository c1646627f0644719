"""A newcomer's first hour, end to end, as they would type it: the quick start
(a whole hand, CFR and NashConv on a reduced deal, a first bot in a
tournament), then a bot written in a file played from the command line
against ``ismcts_bias`` with the shipped network (no training), then an edit
of the bot and a rerun that recomputes and says so."""

import subprocess
import sys

import docs_snippets

BOT = '''"""My first bot: {what}."""
import pyspiel


class Picky(pyspiel.Bot):
    def __init__(self, game, player, seed):
        super().__init__()

    def step(self, state):
        return {pick}(state.legal_actions())

    def restart_at(self, state):
        pass


def make_bot(game, player, seed, **params):
    return Picky(game, player, seed)
'''


def _run(args, cwd):
    out = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
    return out


def test_the_newcomers_path_end_to_end(tmp_path):
    # 1. the quick start page, as one script (a hand, CFR + NashConv, a first bot)
    script = tmp_path / "quickstart.py"
    script.write_text("\n\n".join(b.code for b in docs_snippets.blocks(
        docs_snippets.DOCS / "quickstart.md")))
    quick = _run([str(script)], tmp_path).stdout
    assert "NashConv after 100 iterations:" in quick and "lowest" in quick

    # 2. a bot in a file against ismcts_bias with the shipped network
    bot = tmp_path / "mybot.py"
    bot.write_text(BOT.format(what="its lowest legal card", pick="min"))
    cmd = ["-m", "experiments.tournament", "--agents", f"{bot}:make_bot",
           "ismcts_bias(iterations=20)", "--game", '{"players": 5}', "--deals", "2",
           "--seed", "3", "--deals-per-unit", "1", "--out", str(tmp_path / "runs"), "--no-progress"]
    first = _run(cmd, tmp_path)
    assert "ismcts_bias(checkpoint=None, bias=1.0, iterations=20" in first.stdout
    assert "mybot.py:make_bot" in first.stdout and "lower is better" in first.stdout
    assert "reused" not in first.stderr                  # nothing saved yet

    # 3. the same command again: every deal reused, and said so
    again = _run(cmd, tmp_path)
    assert "2 of 2 units reused (same code), 0 recomputed" in again.stderr, again.stderr
    assert again.stdout == first.stdout

    # 4. the bot edited: the rerun recomputes, names the file, and the numbers change
    bot.write_text(BOT.format(what="its highest legal card", pick="max"))
    edited = _run(cmd, tmp_path)
    assert "0 of 2 units reused (same code), 2 recomputed" in edited.stderr, edited.stderr
    assert "mybot.py" in edited.stderr
    assert edited.stdout != first.stdout

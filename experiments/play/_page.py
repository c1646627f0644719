"""The play app's one HTML page (:mod:`experiments.play._app` serves it): the
table, the person's controls and a script that talks JSON to the app's API.
``__GAME__`` is replaced by the game's id (empty on the start page)."""

__all__ = ["PAGE"]

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cancellation Hearts</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1em; }
#controls { margin: .6em 0; min-height: 2.4em; }
#message { color: #a00; margin: .3em 0; min-height: 1.2em; }
#recent { color: #444; font-size: 90%; }
.ch-card.ch-legal { cursor: pointer; outline: 2px solid #2a7; }
.ch-card.ch-selected { background: #ffd54f; transform: translateY(-4px); }
button { font-size: 100%; margin-right: .5em; }
</style></head>
<body data-game="__GAME__">
<h1>Cancellation Hearts</h1>
<div id="status"></div>
<div id="controls"></div>
<div id="message" role="alert"></div>
<div id="table"></div>
<div id="recent"></div>
<div id="replay"></div>
<p><button type="button" id="new-game">New game</button></p>
<script>
const GAME = document.body.dataset.game;
let view = null, selected = [];
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
async function call(method, path, body) {
  const r = await fetch(path, {method: method, headers: {"Content-Type": "application/json"},
                              body: body === undefined ? undefined : JSON.stringify(body)});
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}
async function send(actions) {
  document.getElementById("message").textContent = "";
  document.body.dataset.busy = "true";
  try { show(await call("POST", "/api/game/" + GAME + "/move", {actions: actions})); }
  catch (e) { document.getElementById("message").textContent = e.message; }
  finally { document.body.dataset.busy = "false"; }
}
function show(v) {
  view = v; selected = [];
  document.getElementById("table").innerHTML = v.html;
  const status = document.getElementById("status");
  const controls = document.getElementById("controls");
  controls.replaceChildren();
  document.getElementById("recent").textContent =
    v.recent.length ? "Since your last move: " + v.recent.join("; ") : "";
  document.body.dataset.phase = v.phase;
  document.body.dataset.over = String(v.over);
  if (v.error) {
    status.textContent = "This game ended early: " + v.error;
    if (v.record) controls.append(el("span", {id: "record"}, "Saved as " + v.record));
    return;
  }
  if (v.over) {
    status.textContent = "Game over. Your result: " + v.returns[v.seat] +
      " (returns " + v.returns.join(", ") + ")";
    if (v.record_error) document.getElementById("message").textContent = v.record_error;
    document.getElementById("replay").innerHTML = v.replay_html;
    if (v.record) controls.append(el("span", {id: "record"}, "Saved as " + v.record));
    return;
  }
  if (!v.your_turn) { status.textContent = "Waiting for P" + v.to_move; return; }
  if (v.moon.length) {
    status.textContent = "You shot the moon: choose";
    for (const m of v.moon) {
      const b = el("button", {"class": "moon-choice", "data-action": m.action}, m.label);
      b.onclick = () => send([m.action]);
      controls.append(b);
    }
    return;
  }
  const legal = new Set(v.legal.map(x => x.card));
  const byCard = {}; for (const x of v.legal) byCard[x.card] = x.action;
  const hand = document.querySelectorAll(
    '#table .ch-hand[data-seat="' + v.seat + '"] .ch-card');
  if (v.pass_count > 0) {
    status.textContent = "You are P" + v.seat + ": choose " + v.pass_count +
      " card(s) to pass, then press Pass";
    const button = el("button", {id: "pass-button", disabled: ""}, "Pass");
    button.onclick = () => send(selected.map(e => byCard[e.dataset.card]));
    controls.append(button);
    hand.forEach(e => {
      if (!legal.has(e.dataset.card)) return;
      e.classList.add("ch-legal");
      e.onclick = () => {
        const i = selected.indexOf(e);
        if (i >= 0) { selected.splice(i, 1); e.classList.remove("ch-selected"); }
        else if (selected.length < v.pass_count) {
          selected.push(e); e.classList.add("ch-selected");
        }
        button.disabled = selected.length !== v.pass_count;
      };
    });
  } else {
    status.textContent = "You are P" + v.seat + ": play a card";
    hand.forEach(e => {
      if (!legal.has(e.dataset.card)) return;
      e.classList.add("ch-legal");
      e.onclick = () => send([byCard[e.dataset.card]]);
    });
  }
}
async function newGame() {
  try { location.href = (await call("POST", "/api/new", {})).url; }
  catch (e) { document.getElementById("message").textContent = e.message; }
}
document.getElementById("new-game").onclick = newGame;
if (GAME) call("GET", "/api/game/" + GAME).then(show).catch(
  e => { document.getElementById("message").textContent = e.message; });
else document.getElementById("status").textContent = "Press New game to start.";
</script>
</body></html>
"""

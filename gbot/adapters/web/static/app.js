// gbot's page: draw a position, show gbot's plays and cube advice, play a game against gbot.
// Every figure comes from the server (POST /hint and /cube); the page keeps no rules of its own.
"use strict";

const $ = (id) => document.getElementById(id);
const START_ID = "4HPwATDgc/ABMA";

async function api(path, body) {
  const r = await fetch(path, {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  });
  const data = await r.json();
  if (!r.ok) throw new Error(data.message || ("HTTP " + r.status));
  return data;
}

function rules() {
  return {jacoby: $("jacoby").checked, beavers: $("beavers").checked};
}

// --- the board ------------------------------------------------------------------------------
// board: 26 counts seen by the side at the bottom (positive, moving 24 -> 1, bar at 25);
// the other side negative, its bar at 0.
function drawBoard(board, labels) {
  const svg = $("board");
  const W = 540, H = 400, PW = 36, BAR = 36, M = 18, R = 15;
  const parts = [];
  const colour = (v) => (v > 0 ? "#f7f1e3" : "#2b2523");
  const stroke = (v) => (v > 0 ? "#5b4a3a" : "#c9b38c");
  const xOf = (i) => M + i * PW + (i >= 6 ? BAR : 0);   // column 0..11, left to right
  parts.push(`<rect x="${M - 4}" y="${M - 4}" width="${12 * PW + BAR + 8}" height="${H - 2 * M + 8}" fill="#c8a36b"/>`);
  parts.push(`<rect x="${M + 6 * PW}" y="${M - 4}" width="${BAR}" height="${H - 2 * M + 8}" fill="#5a3a20"/>`);
  for (let col = 0; col < 12; col++) {
    const top = 13 + col, bottom = 12 - col;
    const x = xOf(col);
    const fillT = col % 2 ? "#8b1e1e" : "#e8d7b0", fillB = col % 2 ? "#e8d7b0" : "#8b1e1e";
    parts.push(`<polygon points="${x},${M} ${x + PW},${M} ${x + PW / 2},${M + 150}" fill="${fillT}"/>`);
    parts.push(`<polygon points="${x},${H - M} ${x + PW},${H - M} ${x + PW / 2},${H - M - 150}" fill="${fillB}"/>`);
    parts.push(`<text x="${x + PW / 2}" y="${M - 6}" class="pt" text-anchor="middle" font-size="9" fill="#f4efe6">${top}</text>`);
    parts.push(`<text x="${x + PW / 2}" y="${H - 5}" class="pt" text-anchor="middle" font-size="9" fill="#f4efe6">${bottom}</text>`);
    stack(parts, board[top], x + PW / 2, M + R, 1);
    stack(parts, board[bottom], x + PW / 2, H - M - R, -1);
  }
  const bx = M + 6 * PW + BAR / 2;
  stack(parts, board[25], bx, H / 2 + 2 * R + 4, -1);     // bottom side's bar, lower half
  stack(parts, board[0], bx, H / 2 - 2 * R - 4, 1);       // top side's bar, upper half
  const W2 = M + 12 * PW + BAR + 10;
  let offBottom = 15, offTop = 15;
  for (let i = 0; i < 26; i++) { if (board[i] > 0) offBottom -= board[i]; else offTop += board[i]; }
  parts.push(`<text x="${W2}" y="${H - M - 4}" font-size="12" fill="#f4efe6">off ${offBottom}</text>`);
  parts.push(`<text x="${W2}" y="${M + 12}" font-size="12" fill="#f4efe6">off ${offTop}</text>`);
  if (labels) {
    parts.push(`<text x="${W2}" y="${H / 2 + 16}" font-size="12" fill="#f7f1e3">${labels.bottom}</text>`);
    parts.push(`<text x="${W2}" y="${H / 2 - 8}" font-size="12" fill="#c9b38c">${labels.top}</text>`);
  }
  svg.innerHTML = parts.join("");
  svg.dataset.board = board.join(",");

  function stack(out, v, cx, cy, dir) {
    const n = Math.abs(v);
    for (let k = 0; k < Math.min(n, 5); k++) {
      out.push(`<circle cx="${cx}" cy="${cy + dir * k * 2 * R}" r="${R - 1}" fill="${colour(v)}" stroke="${stroke(v)}" stroke-width="2"/>`);
    }
    if (n > 5) {
      out.push(`<text x="${cx}" y="${cy + dir * 4 * 2 * R + 4}" text-anchor="middle" font-size="12" fill="${v > 0 ? "#222" : "#eee"}">${n}</text>`);
    }
  }
}

function flip(board) {
  const out = new Array(26);
  for (let i = 0; i < 26; i++) out[i] = -board[25 - i];
  return out;
}

// --- analysis -------------------------------------------------------------------------------
const pct = (x) => (100 * x).toFixed(1);
const sgn = (x) => (x === null || x === undefined ? "—" : (x >= 0 ? "+" : "") + x.toFixed(3));

function showPlays(plays, best, onPick) {
  const body = $("hints").querySelector("tbody");
  body.innerHTML = "";
  plays.forEach((p, i) => {
    const tr = document.createElement("tr");
    tr.className = "hint" + (p.move === best ? " best" : "") + (onPick ? " playable" : "");
    tr.dataset.move = p.move;
    const pr = p.probabilities;
    tr.innerHTML = `<td>${p.rank}</td><td>${p.move || "(no move)"}</td><td>${sgn(p.equity)}</td>` +
      `<td>${i ? sgn(p.diff) : ""}</td><td>${pct(pr.win)}</td><td>${pct(pr.win_gammon)}</td>` +
      `<td>${pct(pr.lose_gammon)}</td>`;
    if (onPick) tr.addEventListener("click", () => onPick(p));
    body.appendChild(tr);
  });
}

function showCube(cube) {
  const e = cube.equities;
  const words = {no_double: "No double", double_take: "Double", double_pass: "Double",
                 too_good_take: "Too good", too_good_pass: "Too good"};
  const ans = {take: "take", pass: "pass", beaver: "beaver"};
  let text = `<b>${words[cube.action]}, ${ans[cube.response]}</b>`;
  if (!cube.can_double) text = "<b>No double possible</b>";
  text += ` &nbsp; ND ${sgn(e.no_double)} · D/T ${sgn(e.double_take)} · D/P ${sgn(e.double_pass)}`;
  $("cube").innerHTML = text;
  $("cube").dataset.action = cube.action;
  $("cube").dataset.response = cube.response;
}

function info(r) {
  const s = r.state;
  const score = s.match_length ? `match to ${s.match_length}, score ${s.score[0]}-${s.score[1]}` : "money";
  $("boardinfo").textContent = `${r.position_id}${r.match_id ? ":" + r.match_id : ""} · pips ${r.pips[0]} vs ${r.pips[1]} · ${score} · cube ${s.cube_value}`;
}

async function analyse(ev) {
  if (ev) ev.preventDefault();
  $("error").textContent = "";
  const position = $("position").value.trim();
  const body = {position, ply: Number($("ply").value), rules: rules(), count: 10};
  const dice = $("dice").value.trim();
  if (dice) body.dice = dice;
  try {
    const h = await api("/hint", body);
    drawBoard(h.board, {bottom: "on roll", top: "opponent"});
    info(h);
    if (h.plays) {
      showPlays(h.plays, h.best, null);
      if (!h.plays.length) $("hints").querySelector("tbody").innerHTML = "<tr><td colspan=7>no legal play</td></tr>";
    } else {
      $("hints").querySelector("tbody").innerHTML = "<tr><td colspan=7>no dice: cube decision only</td></tr>";
    }
    const c = h.cube ? h : await api("/cube", {position, ply: Number($("ply").value), rules: rules()});
    showCube(c.cube);
  } catch (err) {
    $("error").textContent = err.message;
  }
}

// --- a game against gbot (money, no cube) ----------------------------------------------------
const game = {pid: null, over: true, plays: []};
const roll = () => 1 + Math.floor(Math.random() * 6);

function log(text) {
  const li = document.createElement("li");
  li.textContent = text;
  $("gamelog").appendChild(li);
  $("gamelog").scrollTop = $("gamelog").scrollHeight;
}

function status(text) { $("status").textContent = text; }

async function newGame() {
  $("error").textContent = "";
  $("gamelog").innerHTML = "";
  $("cube").textContent = "—";
  delete $("cube").dataset.action;
  showPlays([], null, null);
  game.over = false;
  let a = roll(), b = roll();
  while (a === b) { a = roll(); b = roll(); }
  log(`opening roll: you ${a}, gbot ${b}`);
  game.pid = START_ID;                       // the start looks the same from both sides
  if (a > b) await yourTurn([a, b]); else await gbotTurn([b, a]);
}

async function yourTurn(dice) {
  const d = dice || [roll(), roll()];
  const h = await api("/hint", {position: game.pid, dice: d, count: null, rules: rules()});
  drawBoard(h.board, {bottom: "you", top: "gbot"});
  info(h);
  game.plays = h.plays;
  $("dice").value = `${d[0]}${d[1]}`;
  if (!h.plays.length) {
    log(`you roll ${d[0]}${d[1]}: no legal play`);
    showPlays([], null, null);
    game.pid = h.next_position_id;
    setTimeout(guard(gbotTurn), 300);
    return;
  }
  status(`you rolled ${d[0]}-${d[1]}: your move`);
  $("yourmove").hidden = false;
  showPlays(h.plays, h.best, (p) => guard(play)(p, d));
}

async function play(p, d) {
  if (game.over) return;
  $("yourmove").hidden = true;
  showPlays([], null, null);
  log(`you roll ${d[0]}${d[1]}: ${p.move}`);
  drawBoard(p.board_after, {bottom: "you", top: "gbot"});
  if (p.game_over) { finish("you win"); return; }
  game.pid = p.next_position_id;
  await gbotTurn();
}

function playTyped() {
  const want = $("movetext").value.trim().replace(/\s+/g, " ");
  const p = game.plays.find((q) => q.move === want || q.move.replace(/\*/g, "") === want.replace(/\*/g, ""));
  if (!p) { $("error").textContent = `not a legal play here: ${JSON.stringify(want)} (pick one from the list)`; return; }
  $("error").textContent = "";
  $("movetext").value = "";
  guard(play)(p, $("dice").value.split("").map(Number));
}

async function gbotTurn(dice) {
  const d = dice || [roll(), roll()];
  status(`gbot rolls ${d[0]}-${d[1]} …`);
  const h = await api("/hint", {position: game.pid, dice: d, count: 1, rules: rules()});
  if (!h.plays.length) {
    log(`gbot rolls ${d[0]}${d[1]}: no legal play`);
    game.pid = h.next_position_id;
  } else {
    const p = h.plays[0];
    log(`gbot rolls ${d[0]}${d[1]}: ${p.move}`);
    drawBoard(flip(p.board_after), {bottom: "you", top: "gbot"});
    if (p.game_over) { finish("gbot wins"); return; }
    game.pid = p.next_position_id;
  }
  await yourTurn();
}

function finish(text) {
  game.over = true;
  $("yourmove").hidden = true;
  status(`game over: ${text}`);
  log(text);
}

function guard(fn) {
  return async (...args) => {
    try { await fn(...args); } catch (err) { $("error").textContent = err.message; }
  };
}

$("analyse").addEventListener("submit", analyse);
$("start").addEventListener("click", () => { $("position").value = START_ID; $("dice").value = ""; analyse(); });
$("newgame").addEventListener("click", guard(newGame));
$("playmove").addEventListener("click", playTyped);
$("movetext").addEventListener("keydown", (e) => { if (e.key === "Enter") playTyped(); });
analyse();

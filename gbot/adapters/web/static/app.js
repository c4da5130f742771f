// gbot's page: draw a position, show gbot's plays and cube advice, play a game against gbot.
// Every play, position and decision comes from the server (POST /hint and /cube); the page
// writes positions as gnubg's Position ID and Match ID, and counts the points of a game.
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

// a roll as gnubg writes it: the larger die first ("62")
const high = (d) => [Math.max(d[0], d[1]), Math.min(d[0], d[1])];
const diceText = (d) => high(d).join("");

// --- gnubg's Position ID and Match ID ---------------------------------------------------------
function base64(bytes) {
  return btoa(String.fromCharCode(...bytes));
}

// board: 26 counts seen by the side on roll (positive, its bar at 25; the other side negative,
// its bar at 0)
function positionId(board) {
  const me = [], opp = [];
  for (let i = 0; i < 24; i++) {
    me.push(Math.max(board[i + 1], 0));
    opp.push(Math.max(-board[24 - i], 0));
  }
  me.push(Math.max(board[25], 0));
  opp.push(Math.max(-board[0], 0));
  const bytes = new Array(10).fill(0);
  let k = 0;
  for (const side of [opp, me]) {
    for (const n of side) {
      for (let j = 0; j < n; j++, k++) bytes[k >> 3] |= 1 << (k & 7);
      k++;
    }
  }
  return base64(bytes).slice(0, 14);
}

// f: {cube, owner (0, 1 or "centre"), onRoll, toAct, doubled, resigned, dice, jacoby};
// a money game (match length and score 0)
function matchId(f) {
  const bytes = new Array(9).fill(0);
  const put = (start, width, value) => {
    for (let j = 0; j < width; j++) {
      if ((value >> j) & 1) bytes[(start + j) >> 3] |= 1 << ((start + j) & 7);
    }
  };
  const d = f.dice ? high(f.dice) : [0, 0];
  put(0, 4, Math.round(Math.log2(f.cube)));
  put(4, 2, f.owner === "centre" ? 3 : f.owner);
  put(6, 1, f.onRoll);
  put(8, 3, 1);                      // a game in play
  put(11, 1, f.toAct);
  put(12, 1, f.doubled ? 1 : 0);
  put(13, 2, f.resigned || 0);
  put(15, 3, d[0]);
  put(18, 3, d[1]);
  put(66, 1, f.jacoby ? 0 : 1);
  return base64(bytes);
}

// --- the board ------------------------------------------------------------------------------
// board: seen by the side at the bottom; opts: labels {bottom, top}, dice {values, side:
// "bottom" | "top"}, cube {value, owner: "centre" | "bottom" | "top"}
const W = 600, H = 400, PW = 36, BAR = 36, M = 18, R = 15;
const SIDE_X = M + 12 * PW + BAR + 12;        // the column right of the board

function drawBoard(board, opts) {
  const o = opts || {};
  const svg = $("board");
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
  let offBottom = 15, offTop = 15;
  for (let i = 0; i < 26; i++) { if (board[i] > 0) offBottom -= board[i]; else offTop += board[i]; }
  parts.push(`<text x="${SIDE_X}" y="${H - M - 2}" font-size="12" fill="#f4efe6">off ${offBottom}</text>`);
  parts.push(`<text x="${SIDE_X}" y="${M + 10}" font-size="12" fill="#f4efe6">off ${offTop}</text>`);
  if (o.labels) {
    parts.push(`<text class="side" data-side="bottom" x="${SIDE_X}" y="${H - M - 24}" font-size="13" font-weight="600" fill="#f7f1e3">${o.labels.bottom}</text>`);
    parts.push(`<text class="side" data-side="top" x="${SIDE_X}" y="${M + 32}" font-size="13" font-weight="600" fill="#e2cfa6">${o.labels.top}</text>`);
  }
  if (o.cube) drawCube(parts, o.cube);
  if (o.dice) drawDice(parts, o.dice);
  svg.innerHTML = parts.join("");
  svg.dataset.board = board.join(",");
  svg.dataset.dice = o.dice ? high(o.dice.values).join("") : "";

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

// the cube beside the board: in the middle when centred (showing 64, as gnubg does), else on
// its owner's side
function drawCube(parts, cube) {
  const S = 36, x = SIDE_X + 4;
  const y = {centre: H / 2 - S / 2, top: M + 48, bottom: H - M - 48 - S}[cube.owner];
  const shown = cube.owner === "centre" && cube.value === 1 ? 64 : cube.value;
  parts.push(`<g id="cubeicon" data-value="${cube.value}" data-owner="${cube.owner}">` +
    `<rect x="${x}" y="${y}" width="${S}" height="${S}" rx="5" fill="#f4efe6" stroke="#222" stroke-width="1.5"/>` +
    `<text x="${x + S / 2}" y="${y + S / 2 + 6}" text-anchor="middle" font-size="${shown >= 100 ? 13 : 17}" font-weight="700" fill="#222">${shown}</text></g>`);
}

// two dice, the larger first, on the right half of the board for the bottom side and on the
// left half for the top side
function drawDice(parts, dice) {
  const S = 32, gap = 8;
  const [a, b] = high(dice.values);
  const half = dice.side === "bottom" ? M + 6 * PW + BAR : M;
  const x0 = half + 3 * PW - S - gap / 2, y = H / 2 - S / 2;
  const pips = {1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]],
                4: [[0, 0], [2, 0], [0, 2], [2, 2]], 5: [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]],
                6: [[0, 0], [2, 0], [0, 1], [2, 1], [0, 2], [2, 2]]};
  const face = dice.side === "bottom" ? "#f7f1e3" : "#2b2523";
  const dot = dice.side === "bottom" ? "#222" : "#f4efe6";
  [a, b].forEach((v, i) => {
    const x = x0 + i * (S + gap);
    let g = `<g class="die" data-value="${v}"><rect x="${x}" y="${y}" width="${S}" height="${S}" rx="5" fill="${face}" stroke="#111" stroke-width="1"/>`;
    for (const [cx, cy] of pips[v]) {
      g += `<circle cx="${x + 7 + cx * 9}" cy="${y + 7 + cy * 9}" r="3" fill="${dot}"/>`;
    }
    parts.push(g + "</g>");
  });
}

function flip(board) {
  const out = new Array(26);
  for (let i = 0; i < 26; i++) out[i] = -board[25 - i];
  return out;
}

// --- analysis -------------------------------------------------------------------------------
const pct = (x) => (100 * x).toFixed(1);
const sgn = (x) => (x === null || x === undefined ? "—" : (x >= 0 ? "+" : "") + x.toFixed(3));

// concealed: the plays in a neutral order with no figures (a game with the hints hidden)
function showPlays(plays, best, onPick, concealed) {
  const table = $("hints");
  const body = table.querySelector("tbody");
  body.innerHTML = "";
  table.classList.toggle("concealed", !!concealed);
  const order = concealed
    ? [...plays].sort((p, q) => p.move.localeCompare(q.move, "en", {numeric: true}))
    : plays;
  order.forEach((p, i) => {
    const tr = document.createElement("tr");
    const mark = !concealed && p.move === best;
    tr.className = "hint" + (mark ? " best" : "") + (onPick ? " playable" : "");
    tr.dataset.move = p.move;
    const pr = p.probabilities;
    tr.innerHTML = concealed
      ? `<td>${i + 1}</td><td>${p.move || "(no move)"}</td>`
      : `<td>${p.rank}</td><td>${p.move || "(no move)"}</td><td>${sgn(p.equity)}</td>` +
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

function clearCube(text) {
  $("cube").textContent = text || "—";
  delete $("cube").dataset.action;
  delete $("cube").dataset.response;
}

function info(r) {
  const s = r.state;
  const score = s.match_length ? `match to ${s.match_length}, score ${s.score[0]}-${s.score[1]}` : "money";
  $("boardinfo").textContent = `${r.position_id}${r.match_id ? ":" + r.match_id : ""} · pips ${r.pips[0]} vs ${r.pips[1]} · ${score} · cube ${s.cube_value}`;
}

// the cube of a reply's state, seen from the side on roll (drawn at the bottom)
function cubeOf(state) {
  if (state.cube_owner === "centre") return {value: state.cube_value, owner: "centre"};
  return {value: state.cube_value, owner: state.cube_owner === state.player_on_roll ? "bottom" : "top"};
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
    const rolled = h.dice ? {values: h.dice, side: "bottom"} : null;
    drawBoard(h.board, {labels: {bottom: "on roll", top: "opponent"}, cube: cubeOf(h.state), dice: rolled});
    info(h);
    $("hintnote").hidden = true;
    if (h.plays) {
      showPlays(h.plays, h.best, null, false);
      if (!h.plays.length) $("hints").querySelector("tbody").innerHTML = "<tr><td colspan=7>no legal play</td></tr>";
    } else {
      showPlays([], null, null, false);
      $("hints").querySelector("tbody").innerHTML = "<tr><td colspan=7>no dice: cube decision only</td></tr>";
    }
    const c = h.cube ? h : await api("/cube", {position, ply: Number($("ply").value), rules: rules()});
    showCube(c.cube);
  } catch (err) {
    $("error").textContent = err.message;
  }
}

// --- a money game against gbot, with the cube ------------------------------------------------
// The person is gnubg's player 1 (X, at the bottom), gbot player 0. game.board is seen by the
// person. Beavers are off in these games; the Jacoby rule follows its box at the start.
const YOU = 1, GBOT = 0;
const game = {token: 0, phase: "idle", board: null, cube: 1, owner: "centre", dice: null,
              gbotDice: null, plays: [], best: null, advice: null, jacoby: true, session: 0};
const roll = () => 1 + Math.floor(Math.random() * 6);
const KINDS = {1: "a single game", 2: "a gammon", 3: "a backgammon"};

function log(text) {
  const li = document.createElement("li");
  li.textContent = text;
  $("gamelog").appendChild(li);
  $("gamelog").scrollTop = $("gamelog").scrollHeight;
}

function status(text) { $("status").textContent = text; }

function setPhase(phase) {
  game.phase = phase;
  $("cubeactions").hidden = phase !== "cube";
  $("takeactions").hidden = phase !== "take";
  $("yourmove").hidden = phase !== "move";
  $("resignbox").hidden = phase !== "cube" && phase !== "move";
}

// the cube as the person sees it (at the bottom)
function cubeView() {
  const owner = game.owner === "centre" ? "centre" : (game.owner === YOU ? "bottom" : "top");
  return {value: game.cube, owner};
}

function drawGame(dice, side) {
  drawBoard(game.board, {labels: {bottom: "you", top: "gbot"}, cube: cubeView(),
                         dice: dice ? {values: dice, side} : null});
}

// "PID:MatchID" of the game with `player` on roll (and to act unless told)
function gameId(player, extra) {
  const f = Object.assign({cube: game.cube, owner: game.owner, onRoll: player, toAct: player,
                           jacoby: game.jacoby}, extra || {});
  const board = player === YOU ? game.board : flip(game.board);
  return `${positionId(board)}:${matchId(f)}`;
}

function gameRules() { return {jacoby: game.jacoby, beavers: false}; }

// the position box, the dice box and the line under the board follow the game
function showPosition(id, dice) {
  $("position").value = id;
  $("dice").value = dice ? diceText(dice) : "";
  let you = 0, them = 0;
  game.board.forEach((v, i) => { if (v > 0) you += v * i; else them -= v * (25 - i); });
  const owner = {centre: "centred", [YOU]: "yours", [GBOT]: "gbot's"}[game.owner];
  $("boardinfo").textContent = `${id} · pips: you ${you}, gbot ${them} · money · cube ${game.cube}, ${owner}`;
}

const mayDouble = (player) => game.owner === "centre" || game.owner === player;

function alive(token) { return token === game.token && game.phase !== "over"; }

async function newGame() {
  const token = ++game.token;
  $("gamelog").innerHTML = "";
  game.board = null; game.cube = 1; game.owner = "centre"; game.jacoby = $("jacoby").checked;
  game.gbotDice = null;
  game.plays = []; game.advice = null;
  clearCube();
  showPlays([], null, null, false);
  setPhase("busy");
  let a = roll(), b = roll();
  while (a === b) { a = roll(); b = roll(); }
  log(`opening roll: you ${a}, gbot ${b}`);
  const start = await api("/hint", {position: START_ID, rules: gameRules(), ply: 0});
  if (token !== game.token) return;
  game.board = start.board;                  // the start looks the same from both sides
  if (a > b) await yourRoll(token, [a, b]); else await gbotMoves(token, [a, b]);
}

// the person's turn: roll, or first double when they may
async function yourTurn(token) {
  if (!alive(token)) return;
  game.dice = null;
  drawGame(game.gbotDice, "top");           // gbot's last roll stays in view until yours
  showPosition(gameId(YOU), null);
  showPlays([], null, null, false);
  if (!mayDouble(YOU)) { await yourRoll(token); return; }
  setPhase("cube");
  status("your turn: roll or double");
  game.advice = null;
  showAdvice();
  const c = await api("/cube", {position: gameId(YOU), rules: gameRules()});
  if (!alive(token) || game.phase !== "cube") return;
  game.advice = {kind: "cube", cube: c.cube};
  showAdvice();
}

async function yourDouble(token) {
  if (!alive(token) || game.phase !== "cube") return;
  setPhase("busy");
  const c = await api("/cube", {position: gameId(YOU), rules: gameRules()});
  if (!alive(token)) return;
  if (!c.cube.engine.accept) {
    log(`you double to ${2 * game.cube}: gbot passes`);
    endGame(token, YOU, game.cube, "double passed");
    return;
  }
  game.cube *= 2;
  game.owner = GBOT;
  log(`you double to ${game.cube}: gbot takes`);
  await yourRoll(token);
}

async function yourRoll(token, dice) {
  if (!alive(token)) return;
  setPhase("busy");
  const d = dice || [roll(), roll()];
  game.dice = d;
  showPosition(gameId(YOU, {dice: d}), d);
  const h = await api("/hint", {position: gameId(YOU), dice: d, count: null, rules: gameRules()});
  if (!alive(token)) return;
  drawGame(d, "bottom");
  if (!h.plays.length) {
    log(`you roll ${diceText(d)}: no legal play`);
    status(`you rolled ${diceText(d)}: no legal play`);
    showPlays([], null, null, false);
    setTimeout(() => guard(gbotTurn)(token), 400);
    return;
  }
  game.plays = h.plays;
  game.best = h.best;
  game.advice = null;
  setPhase("move");
  status(`you rolled ${diceText(d)}: your move`);
  showMoveList();
  showAdvice();
}

function showMoveList() {
  if (game.phase !== "move") return;
  const open = $("showhints").checked;
  showPlays(game.plays, game.best, (p) => guard(play)(game.token, p), !open);
  $("hintnote").hidden = open;
  $("hintnote").textContent = "The legal plays, in no particular order; tick “show gbot's hints” for gbot's ranking.";
}

// the cube box during a game: gbot's advice only when the hints are shown
function showAdvice() {
  if (game.phase === "idle" || game.phase === "over") return;
  if (!$("showhints").checked) { clearCube("hidden during a game (show gbot's hints)"); return; }
  const a = game.advice;
  if (!a) { clearCube("—"); return; }
  if (a.kind === "cube") showCube(a.cube);
  else {
    const e = a.cube.equities;
    $("cube").innerHTML = `<b>Proper answer: ${a.cube.response}</b> &nbsp; your equity: ` +
      `take ${sgn(e.double_take === null ? null : -e.double_take)} · pass ${sgn(e.double_pass === null ? null : -e.double_pass)}`;
    $("cube").dataset.action = "take_decision";
    $("cube").dataset.response = a.cube.response;
  }
}

async function play(token, p) {
  if (!alive(token) || game.phase !== "move") return;
  setPhase("busy");
  showPlays([], null, null, false);
  $("hintnote").hidden = true;
  log(`you roll ${diceText(game.dice)}: ${p.move}`);
  game.board = p.board_after;
  drawGame(null);
  if (p.game_over) { endGame(token, YOU, game.cube * kindOf(p.board_after), null); return; }
  await gbotTurn(token);
}

function playTyped() {
  if (game.phase !== "move") return;
  const want = $("movetext").value.trim().replace(/\s+/g, " ");
  const bare = (m) => m.replace(/\*/g, "");
  const p = game.plays.find((q) => q.move === want || bare(q.move) === bare(want));
  if (!p) { $("error").textContent = `not a legal play here: ${JSON.stringify(want)} (pick one from the list)`; return; }
  $("movetext").value = "";
  guard(play)(game.token, p);
}

// gbot's turn: double when the engine would, else roll and play
async function gbotTurn(token) {
  if (!alive(token)) return;
  setPhase("busy");
  if (mayDouble(GBOT)) {
    status("gbot is thinking …");
    const c = await api("/cube", {position: gameId(GBOT), rules: gameRules()});
    if (!alive(token)) return;
    if (c.cube.engine.double) {
      log(`gbot doubles to ${2 * game.cube}`);
      game.advice = {kind: "take", cube: c.cube};
      setPhase("take");
      status(`gbot doubles to ${2 * game.cube}: take or pass?`);
      showAdvice();
      return;
    }
  }
  await gbotMoves(token);
}

async function yourAnswer(token, take) {
  if (!alive(token) || game.phase !== "take") return;
  setPhase("busy");
  if (!take) {
    log("you pass");
    endGame(token, GBOT, game.cube, "double passed");
    return;
  }
  game.cube *= 2;
  game.owner = YOU;
  log(`you take: the cube is ${game.cube}`);
  drawGame(null);
  await gbotMoves(token);
}

async function gbotMoves(token, dice) {
  if (!alive(token)) return;
  setPhase("busy");
  const d = dice || [roll(), roll()];
  game.gbotDice = d;
  status(`gbot rolls ${diceText(d)} …`);
  drawGame(d, "top");
  const h = await api("/hint", {position: gameId(GBOT), dice: d, count: 1, rules: gameRules()});
  if (!alive(token)) return;
  if (!h.plays.length) {
    log(`gbot rolls ${diceText(d)}: no legal play`);
  } else {
    const p = h.plays[0];
    log(`gbot rolls ${diceText(d)}: ${p.move}`);
    game.board = flip(p.board_after);
    drawGame(d, "top");
    if (p.game_over) { endGame(token, GBOT, game.cube * kindOf(p.board_after), null); return; }
  }
  await yourTurn(token);
}

async function yourResign(token) {
  if (!alive(token) || (game.phase !== "cube" && game.phase !== "move")) return;
  const level = Number($("resignlevel").value);
  const before = game.phase;
  setPhase("busy");
  const id = gameId(YOU, {toAct: GBOT, resigned: level, dice: before === "move" ? game.dice : null});
  const h = await api("/hint", {position: id, rules: gameRules()});
  if (!alive(token)) return;
  if (h.resignation.accept) {
    log(`you resign ${KINDS[level]}: gbot accepts`);
    const counted = game.jacoby && game.owner === "centre" ? 1 : level;
    endGame(token, GBOT, game.cube * counted, "resignation");
    return;
  }
  log(`you resign ${KINDS[level]}: gbot rejects, play on`);
  setPhase(before);
  status(before === "move" ? `you rolled ${diceText(game.dice)}: your move` : "your turn: roll or double");
}

// 1, 2 or 3: a single game, a gammon or a backgammon, from the board after the winning play
// (seen by the winner); 1 while the Jacoby rule holds with the cube centred
function kindOf(after) {
  if (game.jacoby && game.owner === "centre") return 1;
  let left = 0, back = false;
  for (let i = 0; i < 26; i++) {
    if (after[i] < 0) {
      left -= after[i];
      if (i <= 6) back = true;                     // on the bar or in the winner's home board
    }
  }
  if (left < 15) return 1;
  return back ? 3 : 2;
}

function endGame(token, winner, points, how) {
  if (token !== game.token) return;
  setPhase("over");
  game.session += winner === YOU ? points : -points;
  const who = winner === YOU ? "you win" : "gbot wins";
  const what = `${who} ${points} point${points === 1 ? "" : "s"}${how ? ` (${how})` : ""}`;
  const total = game.session === 0 ? "even" : `you ${game.session > 0 ? "+" : ""}${game.session}`;
  status(`game over: ${what}; session: ${total}`);
  log(what);
  clearCube();
}

function guard(fn) {
  return async (...args) => {
    $("error").textContent = "";
    try { await fn(...args); } catch (err) {
      $("error").textContent = err.message;
      if (game.phase === "busy") setPhase("over");
    }
  };
}

$("analyse").addEventListener("submit", analyse);
$("start").addEventListener("click", () => { $("position").value = START_ID; $("dice").value = ""; analyse(); });
$("newgame").addEventListener("click", guard(newGame));
$("roll").addEventListener("click", () => { if (game.phase === "cube") guard(yourRoll)(game.token); });
$("double").addEventListener("click", () => guard(yourDouble)(game.token));
$("take").addEventListener("click", () => guard(yourAnswer)(game.token, true));
$("pass").addEventListener("click", () => guard(yourAnswer)(game.token, false));
$("resign").addEventListener("click", () => guard(yourResign)(game.token));
$("playmove").addEventListener("click", playTyped);
$("movetext").addEventListener("keydown", (e) => { if (e.key === "Enter") playTyped(); });
$("showhints").addEventListener("change", () => { showMoveList(); showAdvice(); });
analyse();

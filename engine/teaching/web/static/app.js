// Brudno's page: the board (python-chess's SVG, drawn by the server), the controls, the live
// search and the pruning panel. The server holds the game; this script sends what the user
// does and draws what the server's event stream says.
"use strict";

const $ = (id) => document.getElementById(id);
const FILES = "abcdefgh";
const MARGIN = 15, SQUARE = 45; // chess.svg.board's geometry with coordinates (viewBox 390)
const SVGNS = "http://www.w3.org/2000/svg";

let session = sessionStorage.getItem("brudno-session");
let state = null;
let lines = [];
let selected = null;
let drag = null;
let pendingPromotion = null;
let treeJob = null;
let events = null;
let fenEdited = false;
let lastCall = 0; // requests may be answered out of order: the latest one's answer sets the message

// ---- talking to the server ----
async function api(path, body = {}) {
  const call = ++lastCall;
  let response, data;
  try {
    response = await fetch("/api/" + path, {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({session, ...body}),
    });
    data = await response.json();
  } catch (error) {
    showMessage("the server does not answer: " + error);
    return null;
  }
  if (!response.ok) {
    showMessage(data.error || response.statusText);
    if (state) {
      drawBoard(); // a dragged piece goes back to its square
      render(state); // and the controls show the settings in force
    }
    return null;
  }
  if (call === lastCall) showMessage("");
  if (data.state) render(data.state);
  return data;
}

async function start() {
  if (session) {
    const response = await fetch("/api/state?session=" + session).catch(() => null);
    if (response && response.ok) {
      render(await response.json());
      connect();
      return;
    }
  }
  const response = await fetch("/api/session", {method: "POST", body: "{}",
    headers: {"Content-Type": "application/json"}});
  const data = await response.json();
  if (!response.ok) {
    $("main").hidden = true;
    $("refusal").hidden = false;
    $("refusal").textContent = data.error;
    return;
  }
  session = data.session;
  sessionStorage.setItem("brudno-session", session);
  render(data.state);
  connect();
}

function connect() {
  events = new EventSource("/api/events?session=" + session);
  events.addEventListener("state", (e) => render(JSON.parse(e.data)));
  events.addEventListener("search", (e) => renderSearch(JSON.parse(e.data)));
  events.addEventListener("tree", (e) => onTreeEvent(JSON.parse(e.data)));
  events.onopen = () => { $("connection").textContent = "connected"; };
  events.onerror = () => { $("connection").textContent = "connection lost: is brudno serve running?"; };
}

// The tab is closing or reloading: the search stops now rather than when the stream breaks.
window.addEventListener("pagehide", () => {
  if (session) navigator.sendBeacon("/api/hidden", JSON.stringify({session}));
});

function showMessage(text) {
  $("message").hidden = !text;
  $("message").textContent = text || "";
}

// ---- the board ----
function boardSvg() { return $("board").querySelector("svg"); }

function squareName(file, rank) { return FILES[file] + (rank + 1); }

// The square under a pointer event, or null off the board.
function squareAt(event) {
  const svg = boardSvg();
  const point = svg.createSVGPoint();
  point.x = event.clientX; point.y = event.clientY;
  const p = point.matrixTransform(svg.getScreenCTM().inverse());
  const col = Math.floor((p.x - MARGIN) / SQUARE), row = Math.floor((p.y - MARGIN) / SQUARE);
  if (col < 0 || col > 7 || row < 0 || row > 7) return null;
  return state.orientation === "white" ? squareName(col, 7 - row) : squareName(7 - col, row);
}

function svgPoint(event) {
  const svg = boardSvg();
  const point = svg.createSVGPoint();
  point.x = event.clientX; point.y = event.clientY;
  return point.matrixTransform(svg.getScreenCTM().inverse());
}

// The top-left corner of a square in the SVG's coordinates.
function corner(square) {
  const file = FILES.indexOf(square[0]), rank = Number(square[1]) - 1;
  const col = state.orientation === "white" ? file : 7 - file;
  const row = state.orientation === "white" ? 7 - rank : rank;
  return [MARGIN + col * SQUARE, MARGIN + row * SQUARE];
}

// The piece drawn on each square: chess.svg places each piece with translate(x, y).
function pieceElements() {
  const pieces = {};
  for (const use of boardSvg().querySelectorAll("use")) {
    const m = /translate\(([\d.]+),\s*([\d.]+)\)/.exec(use.getAttribute("transform") || "");
    if (!m) continue;
    const col = Math.round((Number(m[1]) - MARGIN) / SQUARE);
    const row = Math.round((Number(m[2]) - MARGIN) / SQUARE);
    const square = state.orientation === "white" ? squareName(col, 7 - row)
                                                   : squareName(7 - col, row);
    pieces[square] = use;
  }
  return pieces;
}

function canMove() {
  return state && state.your_turn && !state.game_over;
}

function drawBoard() {
  $("board").innerHTML = state.svg;
  $("board").classList.toggle("clickable", canMove());
  const svg = boardSvg();
  svg.setAttribute("data-fen", state.fen);
  const under = document.createElementNS(SVGNS, "g");
  under.setAttribute("id", "marks");
  const firstPiece = svg.querySelector("use");
  svg.insertBefore(under, firstPiece); // below the pieces
  const over = document.createElementNS(SVGNS, "g");
  over.setAttribute("id", "arrows");
  svg.appendChild(over);
  drawMarks();
  drawArrow();
}

function drawMarks() {
  const marks = boardSvg().querySelector("#marks");
  marks.innerHTML = "";
  if (!selected) return;
  const [x, y] = corner(selected);
  const rect = document.createElementNS(SVGNS, "rect");
  Object.entries({x, y, width: SQUARE, height: SQUARE, fill: "#1c7ed6", "fill-opacity": 0.35,
                  class: "selected"}).forEach(([k, v]) => rect.setAttribute(k, v));
  marks.appendChild(rect);
  for (const to of state.targets[selected] || []) {
    const [tx, ty] = corner(to);
    const dot = document.createElementNS(SVGNS, "circle");
    Object.entries({cx: tx + SQUARE / 2, cy: ty + SQUARE / 2, r: 7, fill: "#2b8a3e",
                    "fill-opacity": 0.6, class: "target", "data-square": to})
      .forEach(([k, v]) => dot.setAttribute(k, v));
    marks.appendChild(dot);
  }
}

// The best move of the search in progress, as a green arrow.
function drawArrow() {
  const svg = boardSvg();
  if (!svg) return;
  const group = svg.querySelector("#arrows");
  group.innerHTML = "";
  const line = lines[0];
  if (!line || !line.pv.length || !state.thinking) return;
  const uci = line.pv[0];
  const [x1, y1] = corner(uci.slice(0, 2)), [x2, y2] = corner(uci.slice(2, 4));
  const h = SQUARE / 2;
  const path = document.createElementNS(SVGNS, "line");
  Object.entries({x1: x1 + h, y1: y1 + h, x2: x2 + h, y2: y2 + h, stroke: "#2b8a3e",
                  "stroke-width": 7, "stroke-opacity": 0.55, "stroke-linecap": "round",
                  class: "best-arrow"}).forEach(([k, v]) => path.setAttribute(k, v));
  group.appendChild(path);
  const head = document.createElementNS(SVGNS, "circle");
  Object.entries({cx: x2 + h, cy: y2 + h, r: 6, fill: "#2b8a3e", "fill-opacity": 0.7})
    .forEach(([k, v]) => head.setAttribute(k, v));
  group.appendChild(head);
}

function select(square) {
  selected = square;
  drawMarks();
}

function tryMove(from, to) {
  select(null);
  if (!(state.targets[from] || []).includes(to)) {
    showMessage(`illegal move ${from}-${to}`);
    drawBoard();
    return;
  }
  if (state.promotions.includes(from + to)) {
    pendingPromotion = {from, to};
    $("promotion").hidden = false;
    return;
  }
  api("move", {from, to});
}

function onPointerDown(event) {
  if (!state || event.button !== 0) return;
  const square = squareAt(event);
  if (!square) return;
  if (selected && selected !== square && (state.targets[selected] || []).includes(square)) {
    tryMove(selected, square);
    return;
  }
  if (canMove() && state.targets[square]) {
    select(square);
    const piece = pieceElements()[square];
    if (piece) {
      drag = {from: square, piece, transform: piece.getAttribute("transform"), moved: false};
      boardSvg().appendChild(piece); // on top while dragged
      $("board").setPointerCapture(event.pointerId);
    }
    return;
  }
  select(null);
}

function onPointerMove(event) {
  if (!drag) return;
  const p = svgPoint(event);
  drag.moved = true;
  drag.piece.setAttribute("transform", `translate(${p.x - SQUARE / 2}, ${p.y - SQUARE / 2})`);
}

function onPointerUp(event) {
  if (!drag) return;
  const {from, piece, transform, moved} = drag;
  drag = null;
  const square = squareAt(event);
  if (moved && square && square !== from) {
    tryMove(from, square);
  } else {
    piece.setAttribute("transform", transform); // a click: the piece stays selected
  }
}

// ---- drawing the state ----
function render(next) {
  const boardChanged = !state || state.fen !== next.fen || state.orientation !== next.orientation
    || state.svg !== next.svg;
  state = next;
  if (boardChanged) {
    selected = null;
    $("promotion").hidden = true;
    if (!drag) drawBoard();
  }
  $("board").classList.toggle("clickable", canMove());
  drawArrow(); // shown only while a search runs
  $("status").textContent = state.status;
  if (state.message) showMessage(state.message);
  document.querySelectorAll(".mode").forEach(
    (b) => b.classList.toggle("active", b.dataset.mode === state.mode));
  $("takeback").disabled = !state.can_take_back;
  $("switch").disabled = state.mode !== "play" || state.game_over;
  $("stop").disabled = !state.thinking || state.thinking !== "play";
  const s = state.settings;
  // The engine's ranges (UCI_Elo ends at the measured full strength) bound the inputs.
  for (const [id, [min, max]] of Object.entries(state.limits)) {
    if ($(id).tagName === "INPUT") Object.assign($(id), {min, max});
  }
  setValue("movetime", s.movetime);
  setValue("strength", s.strength);
  setValue("skill", s.skill);
  setValue("elo", s.elo);
  setValue("multipv", String(s.multipv));
  $("skill-label").hidden = s.strength !== "skill";
  $("elo-label").hidden = s.strength !== "elo";
  // The field follows the game, unless the user has typed into it and not yet set it up.
  if (!fenEdited && document.activeElement !== $("fen")) $("fen").value = state.fen;
  $("pgn-download").href = `/api/pgn?session=${session}&download=1`;
  renderMoves();
  lines = state.lines;
  renderLines(state.thinking);
  drawArrow();
  drawGraph(state.evals);
  markStaleTechniques();
}

function setValue(id, value) {
  if (document.activeElement !== $(id)) $(id).value = value;
}

function renderMoves() {
  const list = $("moves");
  list.innerHTML = "";
  const offset = state.ply_offset;
  let item = null;
  state.moves.forEach((san, i) => {
    const ply = offset + i;
    if (ply % 2 === 0 || item === null) {
      item = document.createElement("li");
      const number = document.createElement("span");
      number.className = "n";
      number.textContent = `${Math.floor(ply / 2) + 1}.` + (ply % 2 ? ".." : "");
      item.appendChild(number);
      list.appendChild(item);
    }
    const move = document.createElement("span");
    move.className = "m" + (i === state.moves.length - 1 ? " last" : "");
    move.textContent = san;
    item.appendChild(move);
  });
  list.scrollTop = list.scrollHeight;
}

function renderSearch(event) {
  if (!state || event.fen !== state.fen) return; // a search of a position no longer shown
  lines = event.lines;
  renderLines(state.thinking);
  drawGraph(event.evals);
  drawArrow();
}

function number(n) { return n == null ? "" : Number(n).toLocaleString("en"); }

function renderLines(thinking) {
  const best = lines[0];
  $("live").classList.toggle("idle", !thinking);
  if (!best) {
    $("live-score").textContent = "–";
    $("live-depth").textContent = thinking ? "searching…" : "";
    $("live-nodes").textContent = "";
    $("live-pv").textContent = "";
    setWdl(null);
  } else {
    $("live-score").textContent = best.score + (best.bound ? (best.bound === "lower" ? "↑" : "↓") : "");
    $("live-depth").textContent = `depth ${best.depth}/${best.seldepth ?? best.depth}`;
    $("live-nodes").textContent = `${number(best.nodes)} nodes, ${number(best.nps)} nodes/s`;
    $("live-pv").textContent = best.san;
    setWdl(best.wdl);
  }
  const body = $("lines").querySelector("tbody");
  body.innerHTML = "";
  for (const line of lines) {
    const row = document.createElement("tr");
    const cells = [line.multipv, `${line.depth}/${line.seldepth ?? ""}`, line.score,
                   line.wdl ? line.wdl.join(" / ") : "", number(line.nodes), number(line.nps),
                   line.san];
    cells.forEach((text, i) => {
      const cell = document.createElement("td");
      cell.textContent = text;
      if (i === 6) cell.className = "pv-cell";
      row.appendChild(cell);
    });
    body.appendChild(row);
  }
}

function setWdl(wdl) {
  const [w, d, l] = wdl || [0, 1000, 0];
  const spans = $("wdl").querySelectorAll("span");
  [w, d, l].forEach((v, i) => { spans[i].style.width = (v / 10) + "%"; });
  $("wdl-text").textContent = wdl
    ? `White wins ${(w / 10).toFixed(1)} %, draw ${(d / 10).toFixed(1)} %, Black wins ${(l / 10).toFixed(1)} %`
    : "";
}

function drawGraph(evals) {
  const svg = $("graph");
  const width = 600, height = 180, clip = 600; // ±6 pawns
  const plies = Math.max(20, state.moves.length, ...evals.map(([ply]) => ply));
  const x = (ply) => 30 + (ply / plies) * (width - 40);
  const y = (cp) => height / 2 - (Math.max(-clip, Math.min(clip, cp)) / clip) * (height / 2 - 10);
  let out = `<rect x="0" y="0" width="${width}" height="${height / 2}" fill="#f8f9fa"/>`
    + `<rect x="0" y="${height / 2}" width="${width}" height="${height / 2}" fill="#dee2e6"/>`
    + `<line x1="0" x2="${width}" y1="${height / 2}" y2="${height / 2}" stroke="#868e96"/>`;
  for (const cp of [-400, -200, 200, 400]) {
    out += `<line x1="30" x2="${width}" y1="${y(cp)}" y2="${y(cp)}" stroke="#ced4da" stroke-dasharray="3 3"/>`
      + `<text x="2" y="${y(cp) + 4}" font-size="10" fill="#868e96">${cp > 0 ? "+" : ""}${cp / 100}</text>`;
  }
  const points = evals.map(([ply, cp]) => `${x(ply)},${y(cp)}`).join(" ");
  if (evals.length) {
    out += `<polyline points="${points}" fill="none" stroke="#1c7ed6" stroke-width="2"/>`;
    for (const [ply, cp] of evals) {
      out += `<circle cx="${x(ply)}" cy="${y(cp)}" r="3" fill="#1c7ed6"><title>ply ${ply}: ${(cp / 100).toFixed(2)}</title></circle>`;
    }
  } else {
    out += `<text x="40" y="30" font-size="13" fill="#868e96">no evaluation yet: Brudno's scores appear here as it plays or analyses</text>`;
  }
  const now = x(state.moves.length);
  out += `<line x1="${now}" x2="${now}" y1="0" y2="${height}" stroke="#f08c00" stroke-dasharray="4 3"/>`;
  svg.innerHTML = out;
}

// ---- the pruning panel ----
// The tree events of each job as last seen: the last may come before the answer to the request.
const treeSeen = {};
function onTreeEvent(job) {
  treeSeen[job.id] = job;
  if (job.id === treeJob) renderTree(job);
}

function renderTree(job) {
  const p = job.progress;
  const running = p.state === "running";
  $("tree-go").disabled = running;
  $("tree-cancel").disabled = !running;
  $("tree-progress").hidden = false;
  const order = ["Minimax", "AlphaBeta", "AlphaBeta with move ordering"];
  const index = order.indexOf(p.search);
  const share = p.root_total ? p.root_done / p.root_total : 0;
  $("tree-bar").value = running ? (index < 0 ? 1 : (index + Math.min(1, share)) / 3) : 1;
  let text;
  if (running) {
    text = index < 0 ? `${p.search}…`
      : `${p.search}: ${p.root_done}/${p.root_total} root moves, ${number(p.positions)} positions`;
  } else if (p.state === "done") {
    text = `done: depth ${job.depth}, ${job.drawn} drawn below`;
  } else {
    text = p.message;
  }
  $("tree-progress-text").textContent = text;
  $("tree-progress").classList.toggle("error", p.state === "error");
  const body = $("tree-rows").querySelector("tbody");
  body.innerHTML = "";
  for (const row of job.rows) {
    const tr = document.createElement("tr");
    tr.dataset.algorithm = row.algorithm;
    tr.dataset.evaluations = row.evaluations;
    tr.dataset.cutoffs = row.cutoffs;
    const cells = [row.algorithm, number(row.evaluations), number(row.cutoffs),
                   (100 * row.cut_share).toFixed(2) + " %", number(row.nodes), row.value_text,
                   row.best_san || "–", row.seconds.toFixed(2)];
    cells.forEach((text, i) => {
      const td = document.createElement("td");
      td.textContent = text;
      if (i === 2 && row.cutoffs) td.className = "cut";
      tr.appendChild(td);
    });
    body.appendChild(tr);
  }
  $("tree-rows").hidden = job.rows.length === 0;
  $("tree-note").hidden = !job.note;
  $("tree-note").textContent = job.note;
  if (p.state !== "done") return;
  if (job.has_picture) {
    $("tree-picture").innerHTML = `<img alt="the three searches drawn" src="/tree/${session}/${job.id}.svg">`;
  }
  $("tree-picture").hidden = !job.has_picture;
  const src = `/tree/${session}/${job.id}.html`;
  if (job.has_tree && $("tree-frame").getAttribute("src") !== src) $("tree-frame").src = src;
  $("tree-frame").hidden = !job.has_tree;
}

async function startTree() {
  treeJob = null;
  const data = await api("tree", {depth: Number($("tree-depth").value),
                                  search: $("tree-search").value});
  if (!data) return;
  treeJob = data.job.id;
  $("tree-picture").hidden = true;
  $("tree-frame").hidden = true;
  renderTree(treeSeen[treeJob] || data.job);
}

// Brudno's own tree of the position on the board, drawn by the server (/trace) in its frame.
function traceSearch() {
  const query = new URLSearchParams({fen: state.fen, depth: $("trace-depth").value,
                                     chess960: state.chess960 ? "1" : "0"});
  $("trace-frame").src = "/trace?" + query;
  $("trace-frame").hidden = false;
}

// What each technique saves in the position on the board: the rows of engine/teaching/techniques.py,
// measured by the server (/api/techniques) and drawn here.
let techniquesCall = 0;
let techniquesFen = null; // the position of the table shown

async function measureTechniques() {
  const call = ++techniquesCall;
  const query = new URLSearchParams({fen: state.fen, depth: $("techniques-depth").value,
                                     evaluation: $("techniques-evaluation").value,
                                     chess960: state.chess960 ? "1" : "0"});
  $("techniques-go").disabled = true;
  techniquesStatus(`measuring 21 searches to depth ${query.get("depth")}…`, false);
  let response, data;
  try {
    response = await fetch("/api/techniques?" + query);
    data = await response.json();
  } catch (error) {
    data = {error: "the server does not answer: " + error};
  }
  if (call !== techniquesCall) return; // a later request's answer is the one shown
  $("techniques-go").disabled = false;
  if (!response || !response.ok) {
    techniquesStatus(data.error || response.statusText, true);
    return;
  }
  renderTechniques(data);
}

function techniquesStatus(text, error) {
  $("techniques-status").hidden = !text;
  $("techniques-status").textContent = text;
  $("techniques-status").classList.toggle("error", error);
}

function renderTechniques(table) {
  techniquesFen = table.fen;
  const rows = table.rows;
  const most = Math.max(...rows.map((r) => r.nodes)), least = Math.min(...rows.map((r) => r.nodes));
  const full = rows.find((r) => r.kind === "add" && r.off.length === 0);
  $("techniques-rows").dataset.fen = table.fen;
  $("techniques-rows").dataset.depth = table.depth;
  $("techniques-caption").textContent = `Depth ${table.depth}, the ${table.evaluation} `
    + `evaluation; b = ${table.branching.toFixed(1)} (perft to ${Math.min(table.depth, 3)} `
    + `plies), minimal tree b^⌈d/2⌉ + b^⌊d/2⌋ − 1 = ${number(Math.round(table.minimal_tree))} leaves.`;
  const body = $("techniques-rows").querySelector("tbody");
  body.innerHTML = "";
  const groups = {add: "Adding one technique at a time", without: "The full search without one"};
  let kind = null;
  for (const row of rows) {
    if (row.kind !== kind) {
      kind = row.kind;
      const tr = document.createElement("tr");
      tr.className = "group";
      tr.innerHTML = `<th colspan="9"></th>`;
      tr.firstChild.textContent = groups[kind];
      body.appendChild(tr);
    }
    const tr = document.createElement("tr");
    tr.dataset.row = row.row;
    tr.dataset.kind = row.kind;
    tr.dataset.nodes = row.nodes;
    tr.dataset.bestMove = row.best_move || "";
    if (row === full) tr.className = "full";
    const cells = [row.row, number(row.nodes), number(row.evaluations), row.seconds.toFixed(2),
                   row.ebf.toFixed(2), number(Math.round(row.minimal_tree)),
                   (row.nodes / row.minimal_tree).toFixed(2), row.value_text, row.best_san || "–"];
    cells.forEach((text, i) => {
      const td = document.createElement("td");
      td.textContent = text;
      if (i === 0 && row.note) td.title = `${row.technique} ${row.note}`;
      if (i === 1) {
        // A bar on a log scale from the fewest nodes to the most: the rows span powers of ten.
        const share = 0.04 + 0.96 * (most > least ? Math.log(row.nodes / least)
                                                      / Math.log(most / least) : 1);
        td.className = "bar";
        td.style.setProperty("--share", (100 * share).toFixed(1) + "%");
        td.classList.toggle("more", row.nodes > full.nodes);
        td.classList.toggle("fewer", row.nodes < full.nodes);
      }
      tr.appendChild(td);
    });
    body.appendChild(tr);
  }
  $("techniques-rows").hidden = false;
  techniquesStatus(`${rows.length} searches in ${table.seconds.toFixed(1)} s (a row's label `
                   + "says, on hover, how its technique is switched off)", false);
  markStaleTechniques();
}

// The table stays until measured again; once the board changes it says it is of another position.
function markStaleTechniques() {
  const stale = techniquesFen !== null && state && state.fen !== techniquesFen;
  $("techniques-rows").classList.toggle("stale", stale);
  $("techniques-caption").dataset.stale = stale ? "of an earlier position: measure again" : "";
}

// ---- wiring ----
function showTab(name) {
  document.querySelectorAll(".tab").forEach((t) => t.classList.toggle("active", t.dataset.tab === name));
  document.querySelectorAll(".panel").forEach((p) => { p.hidden = p.id !== "panel-" + name; });
  sessionStorage.setItem("brudno-tab", name);
}

function wire() {
  const board = $("board");
  board.addEventListener("pointerdown", onPointerDown);
  board.addEventListener("pointermove", onPointerMove);
  board.addEventListener("pointerup", onPointerUp);
  board.addEventListener("pointercancel", () => { drag = null; if (state) drawBoard(); });
  document.querySelectorAll("#promotion button").forEach((button) => {
    button.addEventListener("click", () => {
      $("promotion").hidden = true;
      const move = pendingPromotion;
      pendingPromotion = null;
      if (move && button.dataset.piece) api("move", {...move, promotion: button.dataset.piece});
      else drawBoard();
    });
  });
  document.querySelectorAll(".tab").forEach((t) => t.addEventListener("click", () => showTab(t.dataset.tab)));
  document.querySelectorAll(".mode").forEach(
    (b) => b.addEventListener("click", () => api("mode", {mode: b.dataset.mode})));
  $("takeback").onclick = () => api("takeback");
  $("flip").onclick = () => api("flip");
  $("switch").onclick = () => api("switch");
  $("stop").onclick = () => api("stop");
  $("new-game").onclick = () => api("new", {side: $("side").value, chess960: $("chess960").checked,
                                            position: $("chess960-number").value});
  $("fen").addEventListener("input", () => { fenEdited = true; });
  $("set-fen").onclick = async () => {
    if (await api("fen", {fen: $("fen").value, chess960: $("chess960").checked})) {
      fenEdited = false;
      render(state);
    }
  };
  const setting = (id, key, convert) => $(id).addEventListener("change",
    () => api("settings", {settings: {[key]: convert($(id).value)}}));
  setting("movetime", "movetime", Number);
  setting("strength", "strength", String);
  setting("skill", "skill", Number);
  setting("elo", "elo", Number);
  setting("multipv", "multipv", Number);
  $("pgn-copy").onclick = async () => {
    const pgn = await (await fetch("/api/pgn?session=" + session)).text();
    $("pgn-text").hidden = false;
    $("pgn-text").value = pgn;
    try {
      await navigator.clipboard.writeText(pgn);
      showMessage("");
      $("status").textContent = "PGN copied";
    } catch (error) {
      $("pgn-text").select(); // the clipboard is not available: select it for Ctrl-C
    }
  };
  $("tree-go").onclick = startTree;
  $("tree-cancel").onclick = () => api("tree/cancel");
  $("trace-go").onclick = traceSearch;
  $("techniques-go").onclick = measureTechniques;
  showTab(sessionStorage.getItem("brudno-tab") || "play");
}

document.addEventListener("DOMContentLoaded", () => { wire(); start(); });

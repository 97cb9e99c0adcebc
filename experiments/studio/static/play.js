// Playing in the page: the server runs the game (play.py); the page sends action names from
// the keyboard or the action buttons, and draws what comes back.

import { $, api, buildGrid, escapeHtml, keepFitted, say, showError } from "./common.js";
import { drawMap, eventItem } from "./replay.js";

export const game = { id: null, view: null, cells: [], keys: {}, queue: Promise.resolve(),
  starting: false };

function post(url, body) {
  return api(url, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body || {}) });
}

function show(view) {
  const first = !game.view || game.view.frame.grid.length !== view.frame.grid.length ||
    game.view.frame.grid[0].length !== view.frame.grid[0].length;
  game.view = view;
  $("play-view").hidden = false;
  if (first) {
    game.cells = buildGrid($("play-grid"), view.frame.grid.length, view.frame.grid[0].length);
    keepFitted($("play-grid"));
  }
  drawMap(game.cells, view.types, view.frame, $("play-legend"));
  const frame = view.frame;
  const last = view.step === 0 ? "the start" : `world step ${view.step}: ${frame.action} ` +
    (frame.ok ? "ok" : `refused: ${frame.reason}`);
  const status = $("play-status");
  status.textContent = view.over ? `${last}. The game is over: ${view.over}.` : last;
  status.className = !frame.ok ? "bad" : view.over === "goal reached" ? "good" : "";
  const inv = Object.entries(frame.inventory).sort();
  $("play-inventory").innerHTML = inv.length
    ? inv.map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td>${v}</td></tr>`).join("")
    : "<tr><td>(empty)</td></tr>";
  const keyOf = {};
  for (const [k, a] of Object.entries(game.keys)) keyOf[a] = k;
  const legal = new Set(view.legal);
  $("play-actions").innerHTML = view.actions.map((a) =>
    `<button data-action="${escapeHtml(a)}" ${legal.has(a) && !view.over ? "" : "disabled"}>` +
    `${keyOf[a] ? `<kbd>${escapeHtml(keyOf[a])}</kbd>` : ""}${escapeHtml(a)}</button>`).join("") +
    `<button data-agent="1" ${view.over ? "disabled" : ""}><kbd>g</kbd>agent's next action</button>`;
  $("play-actions").querySelectorAll("button[data-action]").forEach((b) =>
    b.onclick = () => act(b.dataset.action));
  $("play-actions").querySelector("button[data-agent]").onclick = agentStep;
  $("play-describe").textContent = say(view.description);
  const list = $("play-events");
  list.innerHTML = view.events.map((e) => eventItem(e, e.frame === view.step,
    e.kind === "action" && e.text.includes("refused") ? "refused" : e.kind)).join("");
  list.scrollTop = list.scrollHeight;
}

// Requests run one after another, in the order the keys were pressed (none is dropped).
function run(request) {
  game.queue = game.queue.then(async () => {
    try {
      show(await request());
      showError(null);
    } catch (err) {
      showError(err);
    }
  });
  return game.queue;
}

const act = (action) => run(() => post(`/api/play/${game.id}/act`, { action }));
const agentStep = () => run(() => post(`/api/play/${game.id}/agent`));

async function start(body) {
  game.starting = true;
  await run(async () => {
    const view = await post("/api/play/new", body);
    game.id = view.id;
    game.keys = view.keys || {};
    game.view = null;
    return view;
  });
  game.starting = false;
}

export function newGame() {
  return start({ spec: $("play-spec").value || "pogostick",
    seed: Number($("play-seed").value) || 0 });
}

// "Play this level" in the editor: the level is saved, then played from its file.
export async function playLevel(level) {
  game.starting = true;
  document.querySelector("nav .tab[data-tab=play-tab]").click();
  await start({ level, seed: 0 });
}

async function save() {
  if (!game.id) return;
  try {
    const answer = await post(`/api/play/${game.id}/save`, { name: $("play-name").value.trim() });
    $("play-status").textContent = `saved to ${answer.path}: ${answer.note}`;
    $("play-status").className = answer.replayable ? "good" : "";
    showError(null);
  } catch (err) {
    showError(err);
  }
}

export async function initPlay() {
  $("play-new").onclick = newGame;
  $("play-save").onclick = save;
  $("play-inject").onclick = () => game.id && run(() =>
    post(`/api/play/${game.id}/novelty`, { name: $("play-novelty").value }));
  document.addEventListener("keydown", (e) => {
    if ($("play-tab").hidden || !game.view || e.ctrlKey || e.metaKey || e.altKey) return;
    if (["INPUT", "SELECT"].includes(e.target.tagName)) return;
    if (e.key === "g") { e.preventDefault(); agentStep(); return; }
    const action = game.keys[e.key];
    if (action && game.view.actions.includes(action)) { e.preventDefault(); act(action); }
  });
  try {
    const novelties = await api("/api/novelties");
    $("play-novelty").innerHTML = novelties.map((n) =>
      `<option ${n === "axe" ? "selected" : ""}>${escapeHtml(n)}</option>`).join("");
  } catch (err) {
    showError(err);
  }
}

// The level editor: paint a map (cells, rectangles, walls), undo, resize; check it (derive its
// PDDL and plan it), save it as a spec, or play it.

import {
  $, api, buildGrid, colorOf, escapeHtml, inkOn, keepFitted, paintCell, showError,
} from "./common.js";

export const editor = { level: null, palette: [], agentGlyphs: {}, brush: null, cells: [],
  tool: "paint", drag: null, undo: [] };

const UNDO_DEPTH = 100;
const WALLS = ["wall", "bedrock", "stone"]; // the wall tool's type: the first the spec has

function editorTypes() {
  const byName = {};
  for (const t of editor.palette) byName[t.name] = t;
  return byName;
}

function drawEditor() {
  const level = editor.level;
  const types = editorTypes();
  const agentAt = {};
  for (const [name, [r, c]] of Object.entries(level.agents)) agentAt[`${r},${c}`] = name;
  level.cells.forEach((row, r) => row.forEach((name, c) => {
    const cell = editor.cells[r][c];
    const type = types[name] || { name };
    const agent = agentAt[`${r},${c}`];
    paintCell(cell, type, agent ? editor.agentGlyphs[agent] : (name === "air" ? "" : (type.glyph || "?")));
    cell.classList.toggle("agent", !!agent);
    cell.title = agent ? `${agent} (on ${name})` : name;
  }));
  $("rows").value = level.cells.length;
  $("cols").value = level.cells[0].length;
  $("undo").disabled = editor.undo.length === 0;
}

function rebuild() {
  editor.cells = buildGrid($("editor-grid"), editor.level.cells.length, editor.level.cells[0].length);
  keepFitted($("editor-grid"));
  drawEditor();
}

function drawPalette() {
  const box = $("palette");
  const types = editor.palette.map((t) =>
    `<button data-brush="type:${escapeHtml(t.name)}" title="${escapeHtml(t.class)}"><span class="swatch" ` +
    `style="background:${colorOf(t)};color:${inkOn(t)}">${t.name === "air" ? "" : escapeHtml(t.glyph)}</span>` +
    `${escapeHtml(t.name)}</button>`);
  const agents = Object.keys(editor.level.agents).map((a) =>
    `<button data-brush="agent:${escapeHtml(a)}"><span class="swatch">${escapeHtml(editor.agentGlyphs[a])}</span>${escapeHtml(a)}</button>`);
  box.innerHTML = types.concat(agents).join("");
  box.querySelectorAll("button").forEach((b) => b.onclick = () => {
    editor.brush = b.dataset.brush;
    box.querySelectorAll("button").forEach((o) => o.classList.toggle("on", o === b));
  });
}

function snapshot() {
  editor.undo.push(JSON.stringify({ cells: editor.level.cells, agents: editor.level.agents }));
  if (editor.undo.length > UNDO_DEPTH) editor.undo.shift();
}

function undo() {
  const last = editor.undo.pop();
  if (!last) return;
  const { cells, agents } = JSON.parse(last);
  const resized = cells.length !== editor.level.cells.length || cells[0].length !== editor.level.cells[0].length;
  editor.level.cells = cells;
  editor.level.agents = agents;
  edited();
  if (resized) rebuild(); else drawEditor();
}

function edited() {
  $("editor-status").textContent = "edited: Check, Plan or Save to check it";
  $("editor-status").className = "";
}

function wallType() {
  const names = editor.palette.map((t) => t.name);
  return WALLS.find((w) => names.includes(w)) || editor.level.cells[0][0];
}

// The cells an operation covers, from where the drag started to where it is now.
function covered(tool, [r0, c0], [r1, c1]) {
  const out = [];
  if (tool === "wall") {  // a straight line along the longer side of the drag
    if (Math.abs(r1 - r0) >= Math.abs(c1 - c0)) {
      for (let r = Math.min(r0, r1); r <= Math.max(r0, r1); r++) out.push([r, c0]);
    } else {
      for (let c = Math.min(c0, c1); c <= Math.max(c0, c1); c++) out.push([r0, c]);
    }
    return out;
  }
  for (let r = Math.min(r0, r1); r <= Math.max(r0, r1); r++) {
    for (let c = Math.min(c0, c1); c <= Math.max(c0, c1); c++) out.push([r, c]);
  }
  return out;
}

function cellAt(target) {
  if (!target || !target.dataset || target.dataset.r === undefined) return null;
  return [Number(target.dataset.r), Number(target.dataset.c)];
}

function apply(rc) {
  const [kind, name] = (editor.brush || "").split(/:(.*)/s);
  if (editor.tool === "wall") {
    for (const [r, c] of covered("wall", editor.drag, rc)) editor.level.cells[r][c] = wallType();
  } else if (kind === "agent") {
    editor.level.agents[name] = rc;
  } else if (kind === "type") {
    const cells = editor.tool === "rect" ? covered("rect", editor.drag, rc) : [rc];
    for (const [r, c] of cells) editor.level.cells[r][c] = name;
  }
}

function down(e) {
  const rc = cellAt(e.target);
  if (!rc || !editor.level) return;
  if (editor.tool !== "wall" && !editor.brush) {
    $("editor-status").textContent = "pick a type or an agent first";
    return;
  }
  e.preventDefault();
  snapshot();
  editor.drag = rc;
  if (editor.tool === "paint") { apply(rc); edited(); drawEditor(); }
}

function over(e) {
  const rc = cellAt(e.target);
  if (!editor.drag || !rc) return;
  if (editor.tool === "paint") { apply(rc); drawEditor(); return; }
  document.querySelectorAll("#editor-grid .preview").forEach((c) => c.classList.remove("preview"));
  for (const [r, c] of covered(editor.tool, editor.drag, rc)) editor.cells[r][c].classList.add("preview");
}

function up(e) {
  if (!editor.drag) return;
  const rc = cellAt(e.target) || editor.drag;
  if (editor.tool !== "paint") apply(rc);
  editor.drag = null;
  document.querySelectorAll("#editor-grid .preview").forEach((c) => c.classList.remove("preview"));
  edited();
  drawEditor();
}

// A new size: the top-left part is kept, new cells are air, and the border is walled again.
function resize() {
  const rows = Math.max(3, Math.min(128, Number($("rows").value) || 3));
  const cols = Math.max(3, Math.min(128, Number($("cols").value) || 3));
  const old = editor.level.cells;
  const border = old[0][0];
  const names = editor.palette.map((t) => t.name);
  const floor = names.includes("air") ? "air" : old[1][1];
  snapshot();
  const cells = [];
  for (let r = 0; r < rows; r++) {
    const row = [];
    for (let c = 0; c < cols; c++) {
      const edge = r === 0 || c === 0 || r === rows - 1 || c === cols - 1;
      const kept = r < old.length - 1 && c < old[0].length - 1 ? old[r][c] : floor;
      row.push(edge ? border : kept);
    }
    cells.push(row);
  }
  editor.level.cells = cells;
  for (const [name, [r, c]] of Object.entries(editor.level.agents)) {
    editor.level.agents[name] = [Math.min(r, rows - 2), Math.min(c, cols - 2)];
  }
  edited();
  rebuild();
}

export async function loadLevel() {
  const spec = $("editor-spec").value || "pogostick";
  const seed = $("editor-seed").value || "0";
  try {
    const data = await api(`/api/level?spec=${encodeURIComponent(spec)}&seed=${encodeURIComponent(seed)}`);
    editor.level = data.level;
    editor.palette = data.palette;
    editor.agentGlyphs = data.agent_glyphs;
    editor.undo = [];
    $("level-name").value = data.level.name;
    drawPalette();
    rebuild();
    showError(null);
    await checkLevel("check");
  } catch (err) {
    showError(err);
  }
}

function showPlan(data) {
  const status = $("plan-status");
  $("level-plan").innerHTML = (data.plan || []).map((s) => `<li>${escapeHtml(s)}</li>`).join("");
  if (data.reachable) {
    status.textContent = `the goal is reachable: a plan of ${data.plan.length} operators ` +
      `(in-process planner, ${data.seconds} s)`;
    status.className = "good";
  } else {
    status.textContent = data.why;
    status.className = "bad";
  }
}

// mode: "check" (derive and plan), "save", or "plan" (the same check, the plan in view)
async function checkLevel(mode) {
  if (!editor.level) return;
  editor.level.name = $("level-name").value.trim();
  const status = $("editor-status");
  status.textContent = mode === "save" ? "saving…" : "checking…";
  try {
    const data = await api(mode === "save" ? "/api/level/save" : "/api/level/derive", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(editor.level),
    });
    $("editor-yaml").textContent = data.yaml;
    $("editor-domain").textContent = data.domain;
    $("editor-problem").textContent = data.problem;
    if (mode === "save") {
      status.textContent = `saved to ${data.path}`;
      status.className = "";
    } else {
      showPlan(data);
      status.textContent = data.reachable ? "the level is valid and its goal is reachable"
        : "the level loads, but its goal is unreachable (see Plan)";
      status.className = data.reachable ? "good" : "bad";
    }
    showError(null);
  } catch (err) {
    status.textContent = "the level has an error";
    status.className = "bad";
    clearDerived();  // what was derived from the level before this edit no longer holds
    showError(err);
  }
}

// An invalid level has no PDDL and no plan: leaving the last ones in view read as if they
// were this level's.
function clearDerived() {
  for (const id of ["editor-yaml", "editor-domain", "editor-problem"]) $(id).textContent = "";
  $("level-plan").innerHTML = "";
  $("plan-status").textContent = "no plan: the level has an error";
  $("plan-status").className = "bad";
}

export async function initEditor(playLevel) {
  $("editor-load").onclick = loadLevel;
  $("derive").onclick = () => checkLevel("check");
  $("plan-level").onclick = () => checkLevel("plan");
  $("save").onclick = () => checkLevel("save");
  $("play-level").onclick = () => {
    if (!editor.level) return;
    editor.level.name = $("level-name").value.trim();
    playLevel(editor.level);
  };
  $("undo").onclick = undo;
  $("resize").onclick = resize;
  document.querySelectorAll("#tools .tool").forEach((b) => b.onclick = () => {
    editor.tool = b.dataset.tool;
    document.querySelectorAll("#tools .tool").forEach((o) => o.classList.toggle("on", o === b));
  });
  const grid = $("editor-grid");
  grid.onmousedown = down;
  grid.onmouseover = over;
  document.addEventListener("mouseup", up);
  document.addEventListener("keydown", (e) => {
    if ($("editor-tab").hidden || ["INPUT", "SELECT"].includes(e.target.tagName)) return;
    if ((e.ctrlKey || e.metaKey) && e.key === "z") { e.preventDefault(); undo(); return; }
    const tool = { p: "paint", r: "rect", w: "wall" }[e.key];
    if (tool) document.querySelector(`#tools .tool[data-tool=${tool}]`).click();
  });
  try {
    const specs = await api("/api/specs");
    const options = specs.map((s) =>
      `<option ${s === "pogostick" ? "selected" : ""}>${escapeHtml(s)}</option>`).join("");
    $("editor-spec").innerHTML = options;
    $("play-spec").innerHTML = options;
  } catch (err) {
    showError(err);
  }
}

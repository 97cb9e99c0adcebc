// The level editor: paint a map, derive its PDDL, save it as a spec.

import { $, api, buildGrid, colorOf, escapeHtml, showError } from "./common.js";

export const editor = { level: null, palette: [], agentGlyphs: {}, brush: null, cells: [],
                 painting: false };

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
    cell.style.background = colorOf(type);
    const agent = agentAt[`${r},${c}`];
    cell.classList.toggle("agent", !!agent);
    cell.textContent = agent ? editor.agentGlyphs[agent] : (name === "air" ? "" : (type.glyph || "?"));
    cell.title = agent ? `${agent} (on ${name})` : name;
  }));
}

function drawPalette() {
  const box = $("palette");
  const types = editor.palette.map((t) =>
    `<button data-brush="type:${t.name}" title="${t.class}"><span class="swatch" ` +
    `style="background:${colorOf(t)}">${t.name === "air" ? "" : escapeHtml(t.glyph)}</span>${escapeHtml(t.name)}</button>`);
  const agents = Object.keys(editor.level.agents).map((a) =>
    `<button data-brush="agent:${a}"><span class="swatch">${escapeHtml(editor.agentGlyphs[a])}</span>${escapeHtml(a)}</button>`);
  box.innerHTML = types.concat(agents).join("");
  box.querySelectorAll("button").forEach((b) => b.onclick = () => {
    editor.brush = b.dataset.brush;
    box.querySelectorAll("button").forEach((o) => o.classList.toggle("on", o === b));
  });
}

function paint(cell) {
  if (!editor.brush || !cell || !cell.dataset.r) return;
  const r = Number(cell.dataset.r), c = Number(cell.dataset.c);
  const [kind, name] = editor.brush.split(/:(.*)/s);
  if (kind === "type") editor.level.cells[r][c] = name;
  else editor.level.agents[name] = [r, c];
  $("editor-status").textContent = "edited: derive or save to check it";
  drawEditor();
}

export async function loadLevel() {
  const spec = $("editor-spec").value || "pogostick";
  const seed = $("editor-seed").value || "0";
  try {
    const data = await api(`/api/level?spec=${encodeURIComponent(spec)}&seed=${encodeURIComponent(seed)}`);
    editor.level = data.level;
    editor.palette = data.palette;
    editor.agentGlyphs = data.agent_glyphs;
    $("level-name").value = data.level.name;
    editor.cells = buildGrid($("editor-grid"), data.level.cells.length, data.level.cells[0].length);
    drawPalette();
    drawEditor();
    showError(null);
    await deriveLevel(false);
  } catch (err) {
    showError(err);
  }
}

async function deriveLevel(save) {
  if (!editor.level) return;
  editor.level.name = $("level-name").value.trim();
  try {
    const data = await api(save ? "/api/level/save" : "/api/level/derive", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(editor.level),
    });
    $("editor-yaml").textContent = data.yaml;
    $("editor-domain").textContent = data.domain;
    $("editor-problem").textContent = data.problem;
    $("editor-status").textContent = save ? `saved to ${data.path}` : "derived: the level is valid";
    showError(null);
  } catch (err) {
    $("editor-status").textContent = "the level has an error";
    showError(err);
  }
}

export async function initEditor() {
  $("editor-load").onclick = loadLevel;
  $("derive").onclick = () => deriveLevel(false);
  $("save").onclick = () => deriveLevel(true);
  const grid = $("editor-grid");
  grid.onmousedown = (e) => { editor.painting = true; paint(e.target); };
  grid.onmouseover = (e) => { if (editor.painting) paint(e.target); };
  document.addEventListener("mouseup", () => { editor.painting = false; });
  try {
    const specs = await api("/api/specs");
    $("editor-spec").innerHTML = specs.map((s) =>
      `<option ${s === "pogostick" ? "selected" : ""}>${escapeHtml(s)}</option>`).join("");
  } catch (err) {
    showError(err);
  }
}

// Shared by the studio's views: the API, errors, and drawing a grid of cells.

export const $ = (id) => document.getElementById(id);

export async function api(url, options) {
  let response;
  try {
    response = await fetch(url, options);
  } catch (err) {
    throw { error: "the studio server does not answer (was it stopped?)", where: url };
  }
  let body;
  try {
    body = await response.json();
  } catch (err) {
    throw { error: `the server sent a non-JSON answer (HTTP ${response.status})`, where: url };
  }
  if (!response.ok) throw body;
  return body;
}

export function showError(err) {
  const box = $("error");
  if (!err) { box.hidden = true; box.textContent = ""; return; }
  const where = err.where ? `${err.where}: ` : "";
  const expected = err.expected ? `\nexpected: ${err.expected}` : "";
  const message = err.error || err.message || String(err);
  box.textContent = `${where}${message}${expected}`;
  box.hidden = false;
}

export function escapeHtml(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// Tile colours come from the server (the RGB renderer's palette, `rgb` on each type): the
// page has no palette of its own, so the browser and the figures show the same map.
export function colorOf(type) {
  const rgb = type && (type.rgb || type.color);
  return rgb ? `rgb(${rgb.join(",")})` : "#ccc";
}

// Near-black on light tiles, near-white on dark ones (the renderer's rule, Rec. 601 luma).
export function inkOn(type) {
  const [r, g, b] = (type && (type.rgb || type.color)) || [200, 200, 200];
  return 0.299 * r + 0.587 * g + 0.114 * b > 140 ? "#141414" : "#fafafa";
}

// Python's words never reach the user: True/False/None read as yes/no/none.
export function say(text) {
  return String(text).replace(/\bTrue\b/g, "yes").replace(/\bFalse\b/g, "no")
    .replace(/\bNone\b/g, "none");
}

export function buildGrid(el, h, w) {
  el.innerHTML = "";
  el.style.gridTemplateColumns = `repeat(${w}, var(--cell))`;
  el.dataset.h = h;
  el.dataset.w = w;
  const cells = [];
  for (let r = 0; r < h; r++) {
    const row = [];
    for (let c = 0; c < w; c++) {
      const cell = document.createElement("div");
      cell.className = "cell";
      cell.dataset.r = r;
      cell.dataset.c = c;
      el.appendChild(cell);
      row.push(cell);
    }
    cells.push(row);
  }
  fitGrid(el);
  return cells;
}

// The cell size that fits the map in its panel's width (and half the window's height), 8 to
// 30 px; a larger map scrolls inside its box rather than spilling over the next panel.
export function fitGrid(el) {
  const box = el.parentElement;
  const panel = box && box.parentElement;
  if (!panel || !el.dataset.w) return;
  const w = Number(el.dataset.w), h = Number(el.dataset.h);
  const width = panel.clientWidth - 24;
  const height = window.innerHeight * 0.5;
  const size = Math.max(8, Math.min(30, Math.floor((width - 2) / w), Math.floor(height / h)));
  el.style.setProperty("--cell", `${size}px`);
}

const observed = new WeakSet();
export function keepFitted(el) {
  if (observed.has(el)) return;
  observed.add(el);
  new ResizeObserver(() => fitGrid(el)).observe(el.parentElement.parentElement);
}

// Paint one cell as the RGB renderer draws it: the type's colour, its glyph for telling
// similar colours apart, and an arrow for an agent's facing.
export function paintCell(cell, type, text) {
  cell.style.background = colorOf(type);
  cell.style.color = inkOn(type);
  cell.textContent = text;
}

// The legend: every type on the map, with its colour and glyph.
export function drawLegend(el, types, extra = []) {
  el.innerHTML = types.map((t) =>
    `<li><span class="swatch" style="background:${colorOf(t)};color:${inkOn(t)}">` +
    `${t.name === "air" ? "" : escapeHtml(t.glyph || "")}</span>${escapeHtml(t.name)}</li>`)
    .concat(extra).join("");
}

// A line diff of two texts (longest common subsequence), as [kind, line] with kind
// "same", "del" (only in a) or "add" (only in b).
export function lineDiff(a, b) {
  const x = a.replace(/\s+$/, "").split("\n"), y = b.replace(/\s+$/, "").split("\n");
  const n = x.length, m = y.length;
  const L = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      L[i][j] = x[i].trim() === y[j].trim() ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    }
  }
  const out = [];
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (x[i].trim() === y[j].trim()) { out.push(["same", y[j]]); i++; j++; }
    else if (L[i + 1][j] >= L[i][j + 1]) out.push(["del", x[i++]]);
    else out.push(["add", y[j++]]);
  }
  while (i < n) out.push(["del", x[i++]]);
  while (j < m) out.push(["add", y[j++]]);
  return out;
}

// The `(:action NAME ...)` block of a domain, with its comment lines, as [start, end).
export function actionSpan(domain, name) {
  const re = new RegExp(`((?:^[ \\t]*;[^\\n]*\\n)*)^[ \\t]*\\(:action ${name.replace(/[-]/g, "\\-")}\\s`, "m");
  const m = re.exec(domain);
  if (!m) return null;
  let depth = 0;
  const open = domain.indexOf("(:action", m.index);
  for (let i = open; i < domain.length; i++) {
    if (domain[i] === "(") depth++;
    else if (domain[i] === ")" && --depth === 0) return [m.index, i + 1];
  }
  return [m.index, domain.length];
}

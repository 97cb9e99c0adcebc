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

export function colorOf(type) {
  if (type.color) return `rgb(${type.color.join(",")})`;
  if (type.name === "air") return "#fbfbf7";
  let h = 0;
  for (const ch of type.name) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return `hsl(${h}, 45%, 72%)`;
}

export function buildGrid(el, h, w) {
  el.innerHTML = "";
  el.style.gridTemplateColumns = `repeat(${w}, 22px)`;
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
  return cells;
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

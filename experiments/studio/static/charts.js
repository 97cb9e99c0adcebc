// Line charts with their own axes: ticks at round numbers on both axes, a y range that
// starts from round numbers around the data (never stretched so a 2 % change fills the
// height), and a legend naming every series.

const COLORS = ["#2f6fdd", "#e08a2c", "#2e8b57", "#b0379b", "#6b7385", "#c23b3b"];

// Round tick values covering [lo, hi], about `count` of them.
export function niceTicks(lo, hi, count = 5) {
  if (!(hi > lo)) { const pad = Math.abs(lo) * 0.1 || 1; lo -= pad; hi += pad; }
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((k) => k * mag).find((s) => s >= raw);
  const first = Math.floor(lo / step) * step;
  const ticks = [];
  for (let v = first; v <= hi + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1] < hi) ticks.push(Number((ticks[ticks.length - 1] + step).toPrecision(12)));
  return ticks;
}

function label(v) {
  const a = Math.abs(v);
  if (a >= 1e6) return `${+(v / 1e6).toFixed(1)}M`;
  if (a >= 1e4) return `${+(v / 1e3).toFixed(1)}k`;
  return `${+v.toFixed(a < 1 && a > 0 ? 2 : 1)}`;
}

// series: [{name, values: [[x, y], ...], dashed}]; options: {x, y (axis titles), yRange}
export function lineChart(svg, series, options) {
  const shown = series.filter((s) => s.values.length);
  // the legend's rows first: the chart grows by a row when the names do not fit in one.
  // The drawing is as wide as the chart is on the page (360 when it is not laid out yet), so
  // its text keeps its CSS size: a fixed 360-wide drawing scaled into a narrow column shrank
  // the text to 7 px at 1024 px.
  const shownWidth = Math.round(svg.getBoundingClientRect().width);
  const W = shownWidth > 0 ? Math.max(220, shownWidth) : 360, L = 44, R = 18, T = 8;
  const place = [];
  let lx = L, rows = 1;
  for (const s of shown) {
    const width = 24 + s.name.length * 5.4;
    if (lx + width > W && lx > L) { lx = L; rows++; }
    place.push([lx, rows]);
    lx += width;
  }
  const B = 36 + 13 * rows, H = 142 + B;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  if (!shown.length) {
    svg.innerHTML = `<text x="${L}" y="${H / 2}">${options.empty || "nothing recorded"}</text>`;
    return;
  }
  const xs = shown.flatMap((s) => s.values.map((p) => p[0]));
  const ys = shown.flatMap((s) => s.values.map((p) => p[1]));
  const xt = niceTicks(0, Math.max(...xs), 4);
  const yt = options.yRange ? niceTicks(options.yRange[0], options.yRange[1], 4)
    : niceTicks(Math.min(...ys), Math.max(...ys), 4);
  const [x0, x1] = [xt[0], xt[xt.length - 1]], [y0, y1] = [yt[0], yt[yt.length - 1]];
  const x = (v) => L + (W - L - R) * (v - x0) / (x1 - x0);
  const y = (v) => T + (H - T - B) * (1 - (v - y0) / (y1 - y0));
  let out = "";
  for (const v of yt) {
    out += `<line class="tick" x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}"/>` +
      `<text x="${L - 4}" y="${y(v) + 3}" text-anchor="end">${label(v)}</text>`;
  }
  for (const v of xt) {
    out += `<line class="axis" x1="${x(v)}" x2="${x(v)}" y1="${H - B}" y2="${H - B + 4}"/>` +
      `<text x="${x(v)}" y="${H - B + 14}" text-anchor="middle">${label(v)}</text>`;
  }
  out += `<line class="axis" x1="${L}" x2="${W - R}" y1="${H - B}" y2="${H - B}"/>` +
    `<line class="axis" x1="${L}" x2="${L}" y1="${T}" y2="${H - B}"/>` +
    `<text x="${(L + W - R) / 2}" y="${H - B + 27}" text-anchor="middle">${options.x}</text>` +
    `<text transform="translate(11 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle">${options.y}</text>`;
  shown.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const pts = s.values.map(([a, b]) => `${x(a).toFixed(1)},${y(b).toFixed(1)}`).join(" ");
    out += `<polyline data-series="${s.name}" fill="none" stroke="${color}" stroke-width="2"` +
      `${s.dashed ? ' stroke-dasharray="5 3"' : ""} points="${pts}"/>`;
    out += s.values.map(([a, b]) =>
      `<circle cx="${x(a).toFixed(1)}" cy="${y(b).toFixed(1)}" r="2.2" fill="${color}"/>`).join("");
    const [lx, r] = place[i];
    const row = H - B + 27 + 13 * r;
    out += `<line x1="${lx}" x2="${lx + 14}" y1="${row - 3}" y2="${row - 3}" stroke="${color}" ` +
      `stroke-width="2"${s.dashed ? ' stroke-dasharray="4 2"' : ""}/>` +
      `<text x="${lx + 17}" y="${row}" style="fill:${color}">${s.name}</text>`;
  });
  svg.innerHTML = out;
}

// The recovery's epochs as one of three charts: success, reward or losses.
export function epochChart(svg, epochs, which) {
  const at = (f) => epochs.filter((e) => typeof f(e) === "number").map((e) => [e.steps, f(e)]);
  const x = "training env steps of the recovery";
  if (which === "success") {
    lineChart(svg, [
      { name: "evaluation success", values: at((e) => e.success_rate) },
      { name: "training success", values: at((e) => e.train_success_rate), dashed: true },
    ], { x, y: "success rate", yRange: [0, 1] });
  } else if (which === "reward") {
    lineChart(svg, [
      { name: "evaluation reward", values: at((e) => e.mean_reward) },
      { name: "training reward", values: at((e) => e.train_mean_reward), dashed: true },
    ], { x, y: "mean episode reward" });
  } else {
    const keys = [...new Set(epochs.flatMap((e) => Object.keys(e.losses || {})))]
      .filter((k) => k.endsWith("loss")).slice(0, 5);
    lineChart(svg, keys.map((k) => ({ name: k, values: at((e) => (e.losses || {})[k]) })),
      { x, y: "loss (mean per update)", empty: "this recording has no losses" });
  }
}

// The replay view: a recording frame by frame, with its plan, PDDL, events and recovery.

import { $, actionSpan, api, buildGrid, colorOf, escapeHtml, showError } from "./common.js";

const ARROWS = ["▲", "▶", "▼", "◀"]; // facing 0..3: north, east, south, west

const replay = { rec: null, frame: 0, cells: [], timer: null, pddlTab: "domain" };

function lastAt(list, f) { // the last entry whose `frame` is at or before f
  let found = null;
  for (const item of list) if (item.frame <= f) found = item;
  return found;
}

function setRecording(rec, label) {
  stopPlaying();
  replay.rec = rec;
  const first = rec.frames[0];
  replay.cells = buildGrid($("grid"), first.grid.length, first.grid[0].length);
  $("frame-slider").max = rec.frames.length - 1;
  const result = rec.result && "success" in rec.result
    ? (rec.result.success ? "goal reached" : "goal not reached") : "unfinished";
  const novelties = rec.novelties && rec.novelties.length ? ` + ${rec.novelties.join(", ")}` : "";
  $("recording-info").textContent =
    `${label}: ${rec.agent} agent on ${rec.spec}${novelties}, map seed ${rec.seed}, ` +
    `${rec.frames.length - 1} world steps, ${result}`;
  $("replay").hidden = false;
  $("empty-hint").hidden = true;
  showError(null);
  showFrame(0);
}

function showFrame(f) {
  const rec = replay.rec;
  if (!rec) return;
  f = Math.max(0, Math.min(rec.frames.length - 1, f));
  replay.frame = f;
  const frame = rec.frames[f];
  const next = rec.frames[f + 1] || null;
  $("frame-slider").value = f;
  $("step-label").textContent = `frame ${f} of ${rec.frames.length - 1} (world step ${frame.step})`;
  drawGrid(frame);
  drawAction(frame, f);
  drawInventory(frame);
  const failure = rec.events.find((e) => e.kind === "failure" && e.frame === f);
  // at a failure, the plan that failed (a replan made right after it shows one frame on)
  const before = failure ? rec.events.slice(0, rec.events.indexOf(failure)) : rec.events;
  const plan = lastAt(before.filter((e) => e.kind === "plan"), f);
  drawPlan(plan, next, failure, frame);
  // at a failure, the domain it failed in (a learned operator may replace it right after)
  drawPddl(failure ? f - 1 : f, failure ? frame.operator : (next ? next.operator : null),
           !!failure);
  drawEvents(f);
  drawRecovery(f);
}

function drawGrid(frame) {
  const types = replay.rec.types;
  frame.grid.forEach((row, r) => row.forEach((t, c) => {
    const cell = replay.cells[r][c];
    const type = types[t];
    cell.style.background = colorOf(type);
    cell.textContent = type.name === "air" ? "" : (type.glyph || "?");
    cell.title = type.name;
    cell.classList.remove("agent");
  }));
  const [r, c] = frame.pos;
  const me = replay.cells[r][c];
  me.classList.add("agent");
  me.textContent = ARROWS[frame.facing] || "A";
  me.title = `the agent, facing ${["north", "east", "south", "west"][frame.facing]}`;
}

function drawAction(frame, f) {
  const el = $("action");
  el.classList.toggle("refused", !frame.ok);
  if (f === 0) { el.textContent = "the state after the reset"; return; }
  const outcome = frame.ok ? "ok" : `refused${frame.reason ? ": " + frame.reason : ""}`;
  const by = frame.operator ? ` for ${frame.operator}` : "";
  el.textContent = `action ${frame.action}${by}: ${outcome}`;
}

function drawInventory(frame) {
  const rows = Object.entries(frame.inventory).sort();
  $("inventory").innerHTML = rows.length
    ? rows.map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td>${v}</td></tr>`).join("")
    : "<tr><td>(empty)</td></tr>";
  if (frame.selected && frame.selected !== "air") {
    $("inventory").innerHTML += `<tr><td>holding</td><td>${escapeHtml(frame.selected)}</td></tr>`;
  }
}

function drawPlan(plan, next, failure, frame) {
  const list = $("plan");
  const operator = $("operator");
  if (!plan) {
    list.innerHTML = "";
    operator.textContent = "no plan yet (this recording has no plan events)";
    return;
  }
  const steps = plan.data.plan || [];
  const failedAt = failure ? frame.plan_index : null;
  const current = !failure && next && next.operator ? next.plan_index : null;
  const finished = !failure && !next && replay.rec.result && replay.rec.result.success;
  list.innerHTML = steps.map((s, i) => {
    let cls = "";
    if (failedAt !== null && i === failedAt) cls = "failed";
    else if (current !== null && i === current) cls = "current";
    else if (finished || (i < (failedAt !== null ? failedAt : current))) cls = "done";
    return `<li class="${cls}">${escapeHtml(s)}</li>`;
  }).join("");
  if (failure) operator.textContent = `failed: ${failure.text}`;
  else if (next && next.operator) operator.textContent = `executing: ${next.operator}`;
  else operator.textContent = "no operator running";
}

function drawPddl(f, operator, failed) {
  const rec = replay.rec;
  const pre = $("pddl");
  if (replay.pddlTab === "problem") {
    pre.textContent = rec.problem || "(no problem recorded)";
    return;
  }
  const domain = lastAt(rec.domains || [], f);
  if (!domain) { pre.textContent = "(no domain recorded)"; return; }
  const name = operator ? operator.split("(")[0] : null;
  const span = name ? actionSpan(domain.domain, name) : null;
  if (!span) { pre.textContent = domain.domain; return; }
  const [a, b] = span;
  const text = domain.domain;
  const cls = name.startsWith("learned_") ? "learned" : "";
  pre.innerHTML = escapeHtml(text.slice(0, a)) +
    `<mark id="pddl-current" class="${cls}" data-operator="${escapeHtml(name)}"` +
    `${failed ? ' data-failed="1"' : ""}>${escapeHtml(text.slice(a, b))}</mark>` +
    escapeHtml(text.slice(b));
  const mark = $("pddl-current");
  pre.scrollTop = Math.max(0, mark.offsetTop - 20);
}

function drawEvents(f) {
  const shown = replay.rec.events.filter((e) => e.frame <= f && e.kind !== "learning");
  $("events").innerHTML = shown.map((e) =>
    `<li class="${e.kind}${e.frame === f ? " now" : ""}">` +
    `<b>${e.frame}</b> ${escapeHtml(e.kind)}: ${escapeHtml(e.text)}</li>`).join("");
  const list = $("events");
  list.scrollTop = list.scrollHeight;
}

function drawRecovery(f) {
  const events = replay.rec.events.filter((e) => e.frame <= f);
  const started = events.filter((e) => e.kind === "recovery" || e.kind === "learning");
  $("recovery").hidden = started.length === 0;
  if (!started.length) return;
  const epochs = events.filter((e) => e.kind === "learning").map((e) => e.data);
  const learned = events.filter((e) => e.kind === "learned").pop();
  const failed = events.filter((e) => e.kind === "recovery_failed").pop();
  $("recovery-text").textContent = learned ? learned.text
    : failed ? `recovery failed: ${failed.text}` : started[started.length - 1].text;
  drawCurve(epochs);
  $("learned-title").hidden = !learned;
  $("learned-pddl").hidden = !learned;
  $("learned-pddl").textContent = learned ? (learned.data.pddl || "") : "";
}

function drawCurve(epochs) {
  const svg = $("curve");
  svg.style.display = epochs.length ? "" : "none";
  const W = 320, H = 180, L = 26, R = 10, T = 22, B = 24;
  if (!epochs.length) {
    svg.innerHTML = `<text x="${L}" y="${H / 2}">no epochs yet</text>`;
    return;
  }
  const xs = epochs.map((e) => e.steps);
  const maxX = Math.max(...xs, 1);
  const rewards = epochs.map((e) => e.mean_reward);
  const lo = Math.min(...rewards), hi = Math.max(...rewards);
  const x = (v) => L + (W - L - R) * v / maxX;
  const y = (v) => T + (H - T - B) * (1 - v);
  const norm = (v) => (hi > lo ? (v - lo) / (hi - lo) : 0.5);
  const line = (vals) => vals.map((v, i) => `${x(xs[i]).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const dots = (vals, cls) => vals.map((v, i) =>
    `<circle class="${cls}" cx="${x(xs[i]).toFixed(1)}" cy="${y(v).toFixed(1)}" r="2.5"/>`).join("");
  const success = epochs.map((e) => e.success_rate);
  svg.innerHTML =
    `<line x1="${L}" y1="${y(0)}" x2="${W - R}" y2="${y(0)}" stroke="#999"/>` +
    `<line x1="${L}" y1="${y(0)}" x2="${L}" y2="${y(1)}" stroke="#999"/>` +
    `<text x="2" y="${y(1) + 3}">1.0</text><text x="2" y="${y(0) + 3}">0.0</text>` +
    `<text x="${L}" y="${H - 8}">0</text>` +
    `<text x="${W - R}" y="${H - 8}" text-anchor="end">${maxX} training steps</text>` +
    `<polyline id="curve-success" fill="none" stroke="#2f6fdd" stroke-width="2" points="${line(success)}"/>` +
    dots(success, "success") +
    `<polyline fill="none" stroke="#e08a2c" stroke-dasharray="4 2" points="${line(rewards.map(norm))}"/>` +
    `<text x="${L}" y="10" style="fill:#2f6fdd">— success rate</text>` +
    `<text x="${L + 90}" y="10" style="fill:#e08a2c">- - mean reward (${lo.toFixed(0)} to ${hi.toFixed(0)})</text>`;
}

function stopPlaying() {
  if (replay.timer) clearInterval(replay.timer);
  replay.timer = null;
  $("play").textContent = "play";
}

function togglePlay() {
  if (replay.timer) { stopPlaying(); return; }
  if (!replay.rec) return;
  if (replay.frame >= replay.rec.frames.length - 1) showFrame(0);
  $("play").textContent = "pause";
  replay.timer = setInterval(() => {
    showFrame(replay.frame + 1);
    if (replay.frame >= replay.rec.frames.length - 1) stopPlaying();
  }, 250);
}

async function openNamed(name) {
  try {
    setRecording(await api(`/api/recordings/${encodeURIComponent(name)}`), name);
  } catch (err) {
    $("replay").hidden = true;
    replay.rec = null;
    showError(err);
  }
}

async function openFile(file) {
  try {
    const rec = await api("/api/recordings/upload", {
      method: "POST", body: await file.arrayBuffer(),
      headers: { "Content-Type": "application/octet-stream", "X-File-Name": file.name },
    });
    setRecording(rec, file.name);
  } catch (err) {
    $("replay").hidden = true;
    replay.rec = null;
    showError(err);
  }
}

export async function initReplay() {
  $("prev").onclick = () => { stopPlaying(); showFrame(replay.frame - 1); };
  $("next").onclick = () => { stopPlaying(); showFrame(replay.frame + 1); };
  $("play").onclick = togglePlay;
  $("frame-slider").oninput = (e) => { stopPlaying(); showFrame(Number(e.target.value)); };
  $("recording-select").onchange = (e) => openNamed(e.target.value);
  $("recording-file").onchange = (e) => { if (e.target.files[0]) openFile(e.target.files[0]); };
  document.querySelectorAll(".pddl-tab").forEach((b) => b.onclick = () => {
    document.querySelectorAll(".pddl-tab").forEach((o) => o.classList.toggle("on", o === b));
    replay.pddlTab = b.dataset.pddl;
    showFrame(replay.frame);
  });
  document.addEventListener("keydown", (e) => {
    if ($("replay-tab").hidden || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.key === "ArrowLeft") showFrame(replay.frame - 1);
    else if (e.key === "ArrowRight") showFrame(replay.frame + 1);
    else if (e.key === " ") { e.preventDefault(); togglePlay(); }
  });
  try {
    const list = await api("/api/recordings");
    $("recording-select").innerHTML = list.map((r) =>
      `<option value="${escapeHtml(r.name)}" title="${escapeHtml(r.path)}">${escapeHtml(r.name)}</option>`).join("");
    $("empty-hint").hidden = list.length > 0;
    if (list.length) await openNamed(list[0].name);
  } catch (err) {
    showError(err);
  }
}

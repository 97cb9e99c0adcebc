// The replay view: a recording frame by frame, with its plan, PDDL, events and recovery.

import {
  $, actionSpan, api, buildGrid, drawLegend, escapeHtml, keepFitted, paintCell, say, showError,
} from "./common.js";
import { drawRecoveryPanel, initChartTabs } from "./recovery.js";

const ARROWS = ["▲", "▶", "▼", "◀"]; // facing 0..3: north, east, south, west

const replay = { rec: null, frame: 0, cells: [], timer: null, pddlTab: "domain", chart: "success" };

function lastAt(list, f) { // the last entry whose `frame` is at or before f
  let found = null;
  for (const item of list) if (item.frame <= f) found = item;
  return found;
}

function setRecording(rec, label) {
  stopPlaying();
  replay.rec = rec;
  const first = rec.frames[0];
  $("frame-slider").max = rec.frames.length - 1;
  const result = rec.result && "success" in rec.result
    ? (rec.result.success ? "goal reached" : "goal not reached") : "unfinished";
  const novelties = rec.novelties && rec.novelties.length ? ` + ${rec.novelties.join(", ")}` : "";
  const regime = rec.knowledge ? `, ${rec.knowledge} knowledge` : "";
  const silent = rec.refusals === "silent" ? ", silent refusals" : "";
  // a run's episodes play maps of the run seed's own block: say the run seed the user gave
  const seed = rec.run_seed != null ? `run seed ${rec.run_seed}` : `map seed ${rec.seed}`;
  $("recording-info").textContent =
    `${label}: ${rec.agent} agent on ${rec.spec}${novelties}${regime}${silent}, ` +
    `${seed}, ${rec.frames.length - 1} world steps, ${result}`;
  $("recording-info").title = rec.seed != null ? `map seed ${rec.seed}` : "";
  $("replay").hidden = false;
  $("empty-hint").hidden = true;
  replay.cells = buildGrid($("grid"), first.grid.length, first.grid[0].length);
  keepFitted($("grid"));
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
  // one numbering with the CLI (docs/COUNTS.md): frame k shows the world after world step k
  const last = rec.frames.length - 1;
  $("step-label").textContent = f === 0 ? `the start: world step 0 of ${last}`
    : `world step ${f} of ${last}`;
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

export function drawMap(cells, types, frame, legend) {
  const seen = new Set();
  frame.grid.forEach((row, r) => row.forEach((t, c) => {
    const cell = cells[r][c];
    const type = types[t];
    seen.add(t);
    paintCell(cell, type, type.name === "air" ? "" : (type.glyph || "?"));
    cell.title = type.name;
    cell.classList.remove("agent");
  }));
  const [r, c] = frame.pos;
  const me = cells[r][c];
  me.classList.add("agent");
  me.textContent = ARROWS[frame.facing] || "A";
  const facing = ["north", "east", "south", "west"][frame.facing || 0];
  me.title = `the agent, facing ${facing}`;
  drawLegend(legend, [...seen].sort((a, b) => a - b).map((t) => types[t]),
    [`<li><span class="swatch">${ARROWS.join("")}</span>the agent's facing</li>`]);
}

function drawGrid(frame) {
  drawMap(replay.cells, replay.rec.types, frame, $("legend"));
}

function drawAction(frame, f) {
  const el = $("action");
  el.classList.toggle("refused", !frame.ok);
  if (f === 0) { el.textContent = "the world after the reset, before any action"; return; }
  const outcome = frame.ok ? "ok" : `refused${frame.reason ? ": " + frame.reason : ""}`;
  const by = frame.operator ? ` for ${frame.operator}` : "";
  el.textContent = `world step ${f}: ${frame.action}${by}: ${outcome}`;
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
  list.parentElement.hidden = !plan;
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
  if (failure) operator.textContent = `failed: ${say(failure.text)}`;
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
  $("events").innerHTML = shown.map((e) => eventItem(e, e.frame === f)).join("");
  const list = $("events");
  list.scrollTop = list.scrollHeight;
}

// One line of an event log: the world step it came after, its kind and its text.
export function eventItem(e, now, cls = e.kind) {
  const kind = e.kind.replace(/_/g, " ");
  const text = e.text.startsWith(`world step ${e.frame}:`) ? e.text.slice(`world step ${e.frame}:`.length).trim() : e.text;
  return `<li class="${cls}${now ? " now" : ""}" data-kind="${escapeHtml(e.kind)}">` +
    `<b title="after world step ${e.frame}">step ${e.frame}</b> ${escapeHtml(kind)}: ` +
    `${escapeHtml(say(text))}</li>`;
}

function drawRecovery(f) {
  const rec = replay.rec;
  const events = rec.events.filter((e) => e.frame <= f);
  const epochs = events.filter((e) => e.kind === "learning").map((e) => e.data);
  drawRecoveryPanel("", events, epochs, replay.chart, (learned) => {
    const domain = [...(rec.domains || [])].reverse().find((d) => d.frame < learned.frame)
      || (rec.domains || [])[0];
    return domain ? domain.domain : "";
  });
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
  initChartTabs("", (which) => { replay.chart = which; showFrame(replay.frame); });
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

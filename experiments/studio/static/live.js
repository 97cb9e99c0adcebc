// The live view: a run started with `nesyworld run ... --studio`, as it goes. The server
// streams it as server-sent events (/api/live, experiments/studio/live.py); EventSource
// reconnects by itself and resumes after the last message it had, so nothing is missed or
// shown twice. Frames come at most ten a second and are drawn once per animation frame.

import { $, api, buildGrid, escapeHtml, keepFitted, say } from "./common.js";
import { drawMap, eventItem } from "./replay.js";
import { STARTS, drawRecoveryPanel, initChartTabs } from "./recovery.js";

const MAX_LINES = 400; // event lines kept in the page's list (all are kept for the diff)

const live = {
  source: null, run: null, events: [], epochs: [], domains: [], chart: "success",
  cells: [], size: "", frame: null, drawing: false, plan: null, episodes: {}, ended: false,
  follow: true, // the event list keeps its newest line in view (until the reader scrolls up)
};

function setState(state, text) {
  const badge = $("live-state");
  badge.className = `badge ${state}`;
  badge.dataset.state = state;
  badge.textContent = text;
}

function showRun(run) {
  live.run = run;
  const novelties = run.novelties && run.novelties.length ? ` + ${run.novelties.join(", ")}` : "";
  const budget = run.budget ? `, ${run.budget.toLocaleString("en")} training steps a recovery` : "";
  const regime = run.knowledge ? `, ${run.knowledge} knowledge` : "";
  const silent = run.refusals === "silent" ? ", silent refusals" : "";
  let text = `${run.agent} agent on ${run.spec}${novelties}, run seed ${run.seed}` +
    `, ${run.protocol} protocol${regime}${silent}${budget}`;
  const s = run.summary;
  if (s && s.verdict) text += ` · ${say(s.verdict)}`;
  $("live-info").textContent = text;
}

// Whether the reader is at the end of the list; a hidden list (another tab) has no position,
// so it keeps what the reader last chose.
function atEnd(list) {
  return list.clientHeight === 0 ? live.follow
    : list.scrollTop + list.clientHeight >= list.scrollHeight - 30;
}

function addLine(item) {
  const list = $("live-events");
  live.follow = atEnd(list);
  list.insertAdjacentHTML("beforeend", item);
  while (list.children.length > MAX_LINES) list.firstElementChild.remove();
  if (live.follow) list.scrollTop = list.scrollHeight;
}

// Lines that arrived while the list was hidden: shown again, it opens at the newest, unless
// the reader had scrolled up.
function followWhenShown() {
  const list = $("live-events");
  list.addEventListener("scroll", () => { if (list.clientHeight > 0) live.follow = atEnd(list); });
  new ResizeObserver(() => {
    if (list.clientHeight > 0 && live.follow) list.scrollTop = list.scrollHeight;
  }).observe(list);
}

function episodeLine(kind, data, text) {
  addLine(`<li class="${kind}" data-kind="${kind}">${escapeHtml(text)}</li>`);
}

// --- the map -----------------------------------------------------------------------------
function scheduleDraw() {
  if (live.drawing) return;
  live.drawing = true;
  (window.requestAnimationFrame || ((f) => setTimeout(f, 16)))(() => {
    live.drawing = false;
    drawFrame(live.frame);
  });
}

function drawFrame(frame) {
  if (!frame) return;
  const h = frame.grid.length, w = frame.grid[0].length;
  if (live.size !== `${h}x${w}`) {
    live.size = `${h}x${w}`;
    live.cells = buildGrid($("live-grid"), h, w);
    keepFitted($("live-grid"));
  }
  drawMap(live.cells, frame.types, frame, $("live-legend"));
  const ep = live.episodes[frame.episode];
  const where = ep ? `${ep.phase} episode ${ep.number}` : `episode ${frame.episode}`;
  $("live-step").textContent = `${where}, world step ${frame.step}`;
  $("live-step").dataset.step = frame.step;
  const action = $("live-action");
  action.classList.toggle("refused", !frame.ok);
  action.textContent = frame.action
    ? `${frame.action}${frame.operator ? ` for ${frame.operator}` : ""}: ` +
      (frame.ok ? "ok" : `refused${frame.reason ? ": " + frame.reason : ""}`)
    : "the world after the reset";
  const rows = Object.entries(frame.inventory).sort();
  $("live-inventory").innerHTML = (rows.length
    ? rows.map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td>${v}</td></tr>`).join("")
    : "<tr><td>(empty)</td></tr>") + (frame.selected && frame.selected !== "air"
    ? `<tr><td>holding</td><td>${escapeHtml(frame.selected)}</td></tr>` : "");
}

// --- the plan and the events -------------------------------------------------------------
function drawPlan() {
  const plan = live.plan;
  $("live-plan").innerHTML = plan ? plan.steps.map((s, i) => {
    const cls = i < plan.done ? "done" : i === plan.done ? (plan.failed ? "failed" : "current") : "";
    return `<li class="${cls}">${escapeHtml(s)}</li>`;
  }).join("") : "";
}

function onAgentEvent(data, id) {
  const e = { kind: data.kind, text: data.text, frame: data.step, data: data.data || {}, seq: id };
  live.events.push(e);
  if (e.kind === "plan") live.plan = { steps: e.data.plan || [], done: 0, failed: false };
  else if (e.kind === "done" && live.plan) live.plan.done++;
  else if (e.kind === "failure" && live.plan) live.plan.failed = true;
  if (["plan", "done", "failure"].includes(e.kind)) drawPlan();
  if (e.kind === "adaptation" && "budget" in e.data) live.epochs = [];
  if (e.kind === "learning") live.epochs.push(e.data);
  else addLine(eventItem(e, false));
  if (STARTS.includes(e.kind) || ["learned", "recovery_failed"].includes(e.kind)) drawRecovery();
}

function drawRecovery() {
  drawRecoveryPanel("live-", live.events, live.epochs, live.chart, (learned) => {
    const before = live.domains.filter((d) => d.seq < learned.seq).pop() || live.domains[0];
    return before ? before.domain : "";
  });
  $("live-idle").hidden = !$("live-recovery").hidden || !$("live-progress-box").hidden;
}

function showProgress(p) {
  $("live-progress-box").hidden = false;
  $("live-idle").hidden = true;
  const bar = $("live-progress");
  bar.max = Math.max(1, p.budget);
  bar.value = Math.min(p.steps, p.budget);
  const steps = `${p.steps.toLocaleString("en")} of ${p.budget.toLocaleString("en")} training steps`;
  const epoch = p.epoch ? `, epoch ${p.epoch}, evaluation success ${Number(p.success_rate).toFixed(2)}` : "";
  const what = {
    preparing: `preparing (the failure on other maps, the learner): ${steps}`,
    training: `training: ${steps}${epoch}`,
    learned: `learned after ${steps}${epoch}`,
    repaired: "repaired", repair_failed: "no repair verified",
    recovery_failed: `no operator learned after ${steps}${epoch}`,
  }[p.state] || steps;
  $("live-progress-text").textContent = `${p.operator}: ${what}`;
  $("live-progress-text").dataset.state = p.state;
  $("live-progress-text").dataset.steps = p.steps;
}

// --- the stream ----------------------------------------------------------------------------
function onMessage(message) {
  const { id, type, data } = message;
  if (type === "run") showRun(data);
  else if (type === "frame") { live.frame = data; scheduleDraw(); }
  else if (type === "agent") onAgentEvent(data, id);
  else if (type === "domain") live.domains.push({ seq: id, domain: data.domain });
  else if (type === "progress") showProgress(data);
  else if (type === "episode") {
    live.episodes[data.episode] = data;
    episodeLine("episode", data, `${data.phase} episode ${data.number} starts`);
    if (!live.ended) setState("running", `running: ${data.phase} episode ${data.number}`);
  } else if (type === "episode_end") {
    episodeLine("episode_end", data, `${data.phase} episode ${data.number}: ` +
      `${data.success ? "goal reached" : "goal not reached"} in ${data.steps} world steps`);
  } else if (type === "end") {
    live.ended = true;
    if (data.state === "failed") setState("failed", `the run failed: ${data.error}`);
    else setState("finished", "finished");
    if (data.summary) showRun({ ...live.run, summary: data.summary });
    live.source.close();
  }
}

export async function initLive() {
  let status;
  try {
    status = await api("/api/live/status");
  } catch (err) {
    return; // a plain studio: no Live tab
  }
  if (!status.live) return;
  $("tab-live").hidden = false;
  $("tab-live").click();
  followWhenShown();
  if (status.run) showRun(status.run);
  initChartTabs("live-", (which) => { live.chart = which; drawRecovery(); });
  const source = live.source = new EventSource("/api/live");
  source.onopen = () => { if (!live.ended) setState("running", "running"); };
  source.onmessage = (event) => onMessage(JSON.parse(event.data));
  source.onerror = () => {
    if (live.ended) return;
    setState("lost", source.readyState === EventSource.CLOSED
      ? "the run's server is gone" : "connection lost: reconnecting…");
  };
}

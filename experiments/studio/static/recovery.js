// A recovery's panel, shared by the replay and the live view: its charts (success, reward,
// losses), the failed operator beside the one that replaced it as a line diff, and the
// learned operator's PDDL. Each view has its own elements, named by an id prefix ("" for the
// replay, "live-" for the live view).

import { $, actionSpan, escapeHtml, lineDiff, say } from "./common.js";
import { epochChart } from "./charts.js";

// "recovery": what recordings made before "adaptation" named the kind call it
export const STARTS = ["adaptation", "recovery", "learning", "repaired", "repair_failed"];

// events: the agent events so far, in order; epochs: the epoch records to chart; chart:
// "success", "reward" or "losses"; domainBefore(learned): the domain text the failed
// operator is read from.
export function drawRecoveryPanel(p, events, epochs, chart, domainBefore) {
  const started = events.filter((e) => STARTS.includes(e.kind));
  $(`${p}recovery`).hidden = started.length === 0;
  if (!started.length) return;
  const learned = events.filter((e) => e.kind === "learned" || e.kind === "repaired").pop();
  const failed = events.filter((e) => e.kind === "recovery_failed").pop();
  $(`${p}recovery-text`).textContent = say(learned ? learned.text
    : failed ? `recovery failed: ${failed.text}` : started[started.length - 1].text);
  $(`${p}curve`).style.display = epochs.length ? "" : "none";
  $(`${p}chart-tabs`).hidden = !epochs.length;
  if (epochs.length) epochChart($(`${p}curve`), epochs, chart);
  const pddl = learned && typeof learned.data.pddl === "string" ? learned.data.pddl : "";
  $(`${p}learned-title`).hidden = !pddl;
  $(`${p}learned-pddl`).hidden = !pddl;
  $(`${p}learned-pddl`).textContent = pddl;
  drawDiff(p, events, learned, pddl, domainBefore);
}

// The failed operator beside the one that replaced it, as a line diff.
function drawDiff(p, events, learned, pddl, domainBefore) {
  let before = "", after = "", failedName = "", newName = "";
  if (learned) {
    const failure = events.slice(0, events.indexOf(learned))
      .filter((e) => e.kind === "failure").pop();
    const op = failure && failure.data.failure && failure.data.failure.operator;
    failedName = typeof op === "string" ? op.split("(")[0] : "";
    if (typeof learned.data.before === "string" && typeof learned.data.after === "string") {
      before = learned.data.before; after = learned.data.after;  // a model repair
      newName = "the repaired model";
    } else if (failedName && pddl) {
      const domain = domainBefore(learned);
      const span = domain ? actionSpan(domain, failedName) : null;
      before = span ? domain.slice(span[0], span[1]) : "";
      after = pddl;
      newName = learned.data.operator || "the learned operator";
    }
  }
  const show = !!(before && after);
  $(`${p}diff-title`).hidden = !show;
  $(`${p}op-diff`).hidden = !show;
  if (!show) return;
  $(`${p}diff-title`).textContent = `${failedName} (failed) → ${newName}`;
  $(`${p}op-diff`).innerHTML = lineDiff(before, after).map(([kind, line]) =>
    `<span class="${kind}">${kind === "del" ? "-" : kind === "add" ? "+" : " "} ` +
    `${escapeHtml(line)}</span>`).join("");
}

// The chart tabs of a panel: clicking one redraws with `redraw(which)`.
export function initChartTabs(p, redraw) {
  const tabs = document.querySelectorAll(`#${p}chart-tabs .chart-tab`);
  tabs.forEach((b) => b.onclick = () => {
    tabs.forEach((o) => o.classList.toggle("on", o === b));
    redraw(b.dataset.chart);
  });
}

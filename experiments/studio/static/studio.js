// nesyworld studio: watch a run live, replay recordings, paint levels and play. Plain
// JavaScript modules, no build.

import { $, showError } from "./common.js";
import { editor, initEditor, loadLevel } from "./editor.js";
import { initLive } from "./live.js";
import { game, initPlay, newGame, playLevel } from "./play.js";
import { initReplay } from "./replay.js";

function initTabs() {
  document.querySelectorAll("nav .tab").forEach((b) => b.onclick = () => {
    document.querySelectorAll("nav .tab").forEach((o) => {
      o.classList.toggle("on", o === b);
      $(o.dataset.tab).hidden = o !== b;
    });
    showError(null);
    if (b.dataset.tab === "editor-tab" && !editor.level) loadLevel();
    if (b.dataset.tab === "play-tab" && !game.id && !game.starting) newGame();
  });
}

window.addEventListener("DOMContentLoaded", () => {
  initTabs();
  initReplay();
  initEditor(playLevel);
  initPlay();
  initLive();
});

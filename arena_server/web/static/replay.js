// Stepping through a finished match: the position after each move, every seat's view (revealed now
// that the match is over), the move with its timing and logged reasoning, and the events around it.
"use strict";

(() => {
  const replay = Arena.data();
  const frames = replay.frames;
  const $ = (id) => document.getElementById(id);
  const step = $("step");
  let at = 0;

  function moveBlock(move) {
    const box = $("move");
    box.textContent = "";
    if (!move) { box.append(Arena.el("p", { text: "Start of the match." })); return; }
    const lines = move.kind === "round" ? move.choices : [move];
    if (move.kind === "chance") { box.append(Arena.el("p", { text: `Chance: ${move.text}` })); return; }
    for (const choice of lines) {
      const who = `seat ${choice.seat} (${replay.seats[choice.seat]})`;
      const p = Arena.el("p", {}, Arena.el("strong", { text: `${who}: ${choice.text}` }));
      if (choice.seconds !== undefined) p.append(Arena.el("span", { class: "dim", text: ` — ${choice.seconds.toFixed(2)} s` }));
      box.append(p);
      if (choice.message) box.append(Arena.el("p", { text: `says: ${choice.message}` }));
      const meta = choice.meta || {};
      const tokens = [];
      if (meta.prompt_tokens) tokens.push(`${meta.prompt_tokens} prompt tokens`);
      if (meta.completion_tokens) tokens.push(`${meta.completion_tokens} completion tokens`);
      if (meta.cost_usd) tokens.push(`$${Number(meta.cost_usd).toFixed(4)}`);
      if (meta.latency) tokens.push(`latency ${meta.latency}`);
      if (tokens.length) box.append(Arena.el("p", { class: "dim tokens", text: tokens.join(" · ") }));
      if (meta.reasoning) box.append(Arena.el("div", { class: "reasoning", text: meta.reasoning }));
    }
  }

  function show(index) {
    at = Math.max(0, Math.min(frames.length - 1, index));
    const frame = frames[at];
    step.value = String(at);
    $("where").textContent = `${at} / ${frames.length - 1}`;
    Arena.drawBoard($("board"), frame.board || null, null);
    moveBlock(frame.move);
    const views = $("views");
    views.textContent = "";
    (frame.views || []).forEach((text, seat) => {
      views.append(Arena.el("details", { open: true, "data-seat": seat },
        Arena.el("summary", { text: `seat ${seat}: ${replay.seats[seat]}` }),
        Arena.el("pre", { class: "view", text })));
    });
    const events = $("events");
    events.textContent = "";
    for (const note of frame.notes || []) events.append(Arena.el("li", { class: "error", text: note }));
    for (const text of frame.events || []) events.append(Arena.el("li", { text }));
    document.body.dataset.frame = String(at);
  }

  $("first").addEventListener("click", () => show(0));
  $("prev").addEventListener("click", () => show(at - 1));
  $("next").addEventListener("click", () => show(at + 1));
  $("last").addEventListener("click", () => show(frames.length - 1));
  step.addEventListener("input", () => show(Number(step.value)));
  document.addEventListener("keydown", (event) => {
    if (event.target.matches("input, textarea, select")) return;
    if (event.key === "ArrowRight") show(at + 1);
    else if (event.key === "ArrowLeft") show(at - 1);
    else if (event.key === "Home") show(0);
    else if (event.key === "End") show(frames.length - 1);
  });
  show(0);
})();

// Playing: the seat's messages arrive over /ws/play (match start, decision requests with the seat's
// view, legal actions and board, events, errors, match end); decisions go back as the ids of legal
// actions the server listed, or as text the game's own parser reads. The clock shows the time the
// server gave; when it runs out the server applies the failure policy, as for any agent.
"use strict";

(() => {
  const page = Arena.data();
  const area = document.getElementById("matches");
  const connection = document.getElementById("connection");
  const template = document.getElementById("match-template");
  const matches = new Map();     // match id -> {node, seat, decision, deadline, players}
  const MANY = 40;               // more legal actions than this: a list to choose from instead of buttons

  function find(match) { return (selector) => match.node.querySelector(selector); }

  function open(message) {
    let match = matches.get(message.match_id);
    if (!match) {
      const node = template.content.firstElementChild.cloneNode(true);
      node.dataset.match = message.match_id;
      match = { node, seats: new Set(), decision: null, deadline: 0, players: message.players || [] };
      matches.set(message.match_id, match);
      area.prepend(node);
      for (const id of ["join", "joined"]) {        // the match takes the page while it runs
        const part = document.getElementById(id);
        if (part) part.hidden = true;
      }
      node.scrollIntoView({ block: "start" });
      find(match)(".resign").addEventListener("click", () => resign(message.match_id));
    }
    match.seats.add(message.seat);
    match.players = message.players || match.players;
    const $ = find(match);
    $(".title").textContent = `${message.game_name}: match ${message.match_id}`;
    for (const part of match.node.querySelectorAll(".chat, .chat-title")) part.hidden = !message.dialogue;
    $(".players").textContent = match.players.map((p) => `seat ${p.seat}: ${p.agent_name}${match.seats.has(p.seat) ? " (you)" : ""}`).join(" · ");
    if (!match.decision && !match.node.dataset.ended) $(".status").textContent = "Waiting for the other side…";
    connection.textContent = `In a match as ${page.agent}.`;
    return match;
  }

  function decide(message) {
    const match = matches.get(message.match_id);
    if (!match) return;
    match.decision = message;
    match.deadline = performance.now() + message.seconds_left * 1000;
    const $ = find(match);
    match.node.dataset.turn = "1";
    $(".status").textContent = `Your move (seat ${message.seat})${message.attempt ? ", attempt " + (message.attempt + 1) : ""}.`;
    const feedback = $(".feedback");
    feedback.hidden = !message.feedback;
    feedback.textContent = message.feedback || "";
    $(".view").textContent = message.text;
    Arena.drawBoard($(".board-wrap"), message.board, (move) => send(match, { action_id: move.id }));
    const images = $(".images");
    images.textContent = "";
    for (const src of message.images || []) images.append(Arena.el("img", { src, alt: "picture of the board" }));
    legalButtons(match, message);
    textForm(match, message);
    conversation(match, message.conversation || []);
  }

  function legalButtons(match, message) {
    const box = find(match)(".legal");
    box.textContent = "";
    if (!message.legal.length) return;
    if (message.legal.length > MANY) {
      const select = Arena.el("select", { "aria-label": "legal actions" });
      for (const action of message.legal) select.append(Arena.el("option", { value: action.id, text: action.text }));
      const play = Arena.el("button", { type: "button", text: "Play" });
      play.addEventListener("click", () => send(match, { action_id: Number(select.value) }));
      box.append(select, play);
      return;
    }
    for (const action of message.legal) {
      const button = Arena.el("button", { type: "button", "data-action": action.id, text: action.text });
      button.addEventListener("click", () => send(match, { action_id: action.id }));
      box.append(button);
    }
  }

  function textForm(match, message) {
    const $ = find(match);
    const form = $(".textform");
    const spec = message.text_action;
    form.hidden = !spec;
    if (!spec) return;
    const area = form.querySelector("textarea");
    area.value = "";
    area.maxLength = spec.max_length || 1000;
    const what = spec.message ? `Message (${spec.message})` : "Or type your move";
    const avoid = spec.forbidden_words && spec.forbidden_words.length ? `; not: ${spec.forbidden_words.join(", ")}` : "";
    const heard = spec.audience && spec.audience.length ? `; heard by seats ${spec.audience.join(", ")}` : "";
    form.querySelector(".textlabel").textContent = `${what}: ${spec.description || ""}${avoid}${heard}`;
    form.querySelector("button").hidden = Boolean(spec.message && message.legal.length > 1);
    form.onsubmit = (event) => {
      event.preventDefault();
      const text = area.value.trim();
      if (!text) return;
      // One legal action: the text is its message. Otherwise the text is the move (the game reads it,
      // and splits off the message when the turn wants one).
      if (spec.message && message.legal.length === 1) send(match, { action_id: message.legal[0].id });
      else send(match, { text });
    };
  }

  function conversation(match, said) {
    const chat = find(match)(".chat");
    chat.textContent = "";
    for (const line of said) {
      const who = (match.players.find((p) => p.seat === line.seat) || {}).agent_name || `seat ${line.seat}`;
      chat.append(Arena.el("li", {}, Arena.el("span", { class: "who", text: `${who}: ` }), line.text));
    }
  }

  function send(match, choice) {
    const decision = match.decision;
    if (!decision) return;
    const spec = decision.text_action;
    const text = find(match)(".textform textarea").value.trim();
    const message = { type: "decision", match_id: decision.match_id, decision_id: decision.decision_id, ...choice };
    if (spec && spec.message && text && choice.text === undefined) message.message = text;
    if (spec && spec.message === "required" && !text) {
      const feedback = find(match)(".feedback");
      feedback.hidden = false;
      feedback.textContent = "Write the message first: this move needs one.";
      return;
    }
    if (!socket.send(message)) return;
    settle(match, "Sent; waiting for the other side…");
  }

  function settle(match, status) {
    match.decision = null;
    delete match.node.dataset.turn;
    const $ = find(match);
    $(".status").textContent = status;
    $(".legal").textContent = "";
    $(".textform").hidden = true;
    const board = $(".board-wrap");
    for (const button of board.querySelectorAll("button")) button.disabled = true;
    $(".clock").textContent = "";
  }

  function resign(matchId) {
    const match = matches.get(matchId);
    if (!match || match.node.dataset.ended || !window.confirm("Resign this match?")) return;
    for (const seat of match.seats) socket.send({ type: "resign", match_id: matchId, seat });
  }

  function event(message) {
    const match = matches.get(message.match_id);
    if (!match) return;
    const $ = find(match);
    const events = $(".events");
    events.append(Arena.el("li", { "data-kind": message.kind, text: message.text }));
    events.scrollTop = events.scrollHeight;
    if (message.kind === "message") {
      const who = (match.players.find((p) => p.seat === message.seats[0]) || {}).agent_name || `seat ${message.seats[0]}`;
      $(".chat").append(Arena.el("li", {}, Arena.el("span", { class: "who", text: `${who}: ` }),
                                 message.text.replace(/^seat \d+ says: /, "")));
    }
  }

  function ended(message) {
    const match = matches.get(message.match_id) || open({ match_id: message.match_id, seat: message.seat, game_name: "" });
    settle(match, "The match is over.");
    match.node.dataset.ended = "1";
    if (message.final) {
      Arena.drawBoard(find(match)(".board-wrap"), message.final.board, null);
      find(match)(".view").textContent = message.final.text;
    }
    const mine = message.returns.length ? ` Your return: ${message.returns[message.seat]}.` : "";
    const result = find(match)(".result");
    result.textContent = `${message.summary} (${message.reason}).${mine} `;
    result.append(Arena.el("a", { href: `/matches/${encodeURIComponent(message.match_id)}`, text: "Replay" }));
    find(match)(".resign").hidden = true;
    if ([...matches.values()].every((m) => m.node.dataset.ended)) {
      document.getElementById("join").hidden = false;
      connection.textContent = "Choose a game above to play again.";
    }
  }

  function error(message) {
    const match = matches.get(message.match_id);
    const text = `${message.code}: ${message.message}`;
    if (!match) { connection.textContent = text; return; }
    const feedback = find(match)(".feedback");
    feedback.hidden = false;
    feedback.textContent = text;
  }

  setInterval(() => {
    for (const match of matches.values()) {
      if (!match.decision) continue;
      const left = Math.max(0, (match.deadline - performance.now()) / 1000);
      const clock = find(match)(".clock");
      clock.textContent = `${left.toFixed(1)} s left`;
      clock.classList.toggle("low", left < 5);
    }
  }, 100);

  const socket = Arena.socket("/ws/play", (message) => {
    if (message.type === "welcome") {
      connection.textContent = message.games.length
        ? `Connected as ${message.agent}; waiting ${message.ladder ? "on the ladder" : "for tournament matches"}: ${message.games.join(", ")}.`
        : `Connected as ${message.agent}. Choose a game to play.`;
    } else if (message.type === "match_started") open(message);
    else if (message.type === "decision") decide(message);
    else if (message.type === "event") event(message);
    else if (message.type === "match_ended") ended(message);
    else if (message.type === "error") error(message);
  }, {
    onClose: (closed) => {
      if (closed.code === 4001 || closed.reason) { connection.textContent = closed.reason || "Disconnected."; return false; }
      connection.textContent = "Connection lost; reconnecting…";
      return true;
    },
  });
})();

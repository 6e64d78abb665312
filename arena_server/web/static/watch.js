// A live match for spectators: its public events (and, when every move is public, the position) as
// they happen. When the match ends the page reloads into its replay.
"use strict";

(() => {
  const page = Arena.data();
  const board = document.getElementById("board");
  const view = document.getElementById("view");
  const events = document.getElementById("events");
  const chat = document.getElementById("chat");
  const status = document.getElementById("status");
  const seen = new Set();
  let moves = 0;

  const connection = Arena.socket(`/ws/matches/${encodeURIComponent(page.match_id)}`, (message) => {
    if (message.type === "event") {
      if (seen.has(message.sequence)) return;        // a reconnect sends the stored events again
      seen.add(message.sequence);
      events.append(Arena.el("li", { "data-kind": message.kind, text: message.text }));
      events.scrollTop = events.scrollHeight;
      if (message.kind === "move" || message.kind === "round_resolved") {
        moves += 1;
        board.dataset.moves = String(moves);
      }
      if (message.kind === "message" && chat) {
        const who = page.seats[message.seats[0]] || `seat ${message.seats[0]}`;
        chat.append(Arena.el("li", {}, Arena.el("span", { class: "who", text: `${who}: ` }),
                             message.text.replace(/^seat \d+ says: /, "")));
      }
    } else if (message.type === "position") {
      Arena.drawBoard(board, message.board, null);
      board.dataset.moves = String(moves);
      if (message.text) {
        view.hidden = false;
        document.getElementById("view-note").hidden = false;
        view.textContent = message.text;
      }
    } else if (message.type === "ended") {
      status.textContent = `${message.status}: ${message.summary}`;
      document.body.dataset.ended = "1";
      connection.stop();
      setTimeout(() => location.reload(), 1500);
    }
  });
})();

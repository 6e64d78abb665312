// Shared by every page: the page's data, WebSockets, the board grid, and live refresh of pages that
// list matches. No game rule lives here: a board and its clickable moves come from the server.
"use strict";

const Arena = (() => {
  function data() {
    const node = document.getElementById("page-data");
    return node ? JSON.parse(node.textContent) : null;
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "class") node.className = value;
      else if (name === "text") node.textContent = value;
      else node.setAttribute(name, value === true ? "" : value);
    }
    for (const child of children) {
      if (child !== null && child !== undefined) node.append(child);
    }
    return node;
  }

  // A WebSocket to `path` on this server; reconnects after a drop unless `onClose` returns false.
  function socket(path, onMessage, { onOpen, onClose } = {}) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    let ws = null, delay = 500, stopped = false;
    const connect = () => {
      ws = new WebSocket(`${scheme}//${location.host}${path}`);
      ws.onopen = () => { delay = 500; if (onOpen) onOpen(); };
      ws.onmessage = (event) => onMessage(JSON.parse(event.data));
      ws.onclose = (event) => {
        if (stopped) return;
        if (onClose && onClose(event) === false) return;
        setTimeout(connect, delay);
        delay = Math.min(delay * 2, 8000);
      };
    };
    connect();
    return {
      send: (message) => { if (ws && ws.readyState === WebSocket.OPEN) { ws.send(JSON.stringify(message)); return true; } return false; },
      stop: () => { stopped = true; if (ws) ws.close(); },
    };
  }

  // Draws `board` (see arena_server/web/boards.py) into `wrap`. With `onMove`, the cells of the legal
  // moves' paths are buttons: clicking a path's cells in order calls onMove(move).
  function drawBoard(wrap, board, onMove) {
    wrap.textContent = "";
    if (!board) return;
    const moves = onMove ? (board.moves || []) : [];
    let chosen = [];        // the cells clicked so far, a prefix of some moves' paths

    const matches = (step, r, c) => step && (step[0] === null || step[0] === r) && step[1] === c;
    const candidates = () => moves.filter((m) => chosen.every((cell, k) => matches(m.path[k], cell[0], cell[1])));

    const render = () => {
      wrap.textContent = "";
      const open = candidates();
      const table = el("table", { class: "grid", role: "grid", "aria-label": "board" });
      if (board.col_labels && board.col_labels.length) {
        const head = el("tr", {}, board.row_labels.length ? el("th") : null);
        for (const label of board.col_labels) head.append(el("th", { scope: "col", text: label }));
        table.append(head);
      }
      for (let r = 0; r < board.rows; r++) {
        const tr = el("tr", {}, board.row_labels.length ? el("th", { scope: "row", text: board.row_labels[r] }) : null);
        for (let c = 0; c < board.cols; c++) {
          const cell = (board.cells[r] || [])[c] || { t: "", c: "" };
          const selected = chosen.some((x) => x[0] === r && x[1] === c);
          const target = open.some((m) => matches(m.path[chosen.length], r, c));
          const label = `row ${board.row_labels[r] || r + 1}, column ${board.col_labels[c] || c + 1}${cell.t ? ": " + cell.t : ""}`;
          let inner;
          if (target || (selected && onMove)) {
            inner = el("button", { type: "button", class: `${cell.c} ${target ? "target" : ""} ${selected ? "selected" : ""}`,
                                   "aria-label": label, "data-row": r, "data-col": c, text: cell.t });
            inner.addEventListener("click", () => click(r, c, selected));
          } else {
            inner = el("span", { class: `cell ${cell.c} ${selected ? "selected" : ""}`, "aria-label": label, text: cell.t });
          }
          tr.append(el("td", { "data-row": r, "data-col": c }, inner));
        }
        table.append(tr);
      }
      wrap.append(table);
      if (board.caption) wrap.append(el("p", { class: "grid-caption", text: board.caption }));
    };

    const click = (r, c, selected) => {
      if (selected) { chosen = []; render(); return; }        // clicking a chosen cell again starts over
      const step = chosen.length;
      const next = candidates().filter((m) => matches(m.path[step], r, c));
      if (!next.length) return;
      const done = next.filter((m) => m.path.length === step + 1);
      if (done.length && done.length === next.length) { onMove(done[0]); return; }
      chosen = chosen.concat([[r, c]]);
      render();
    };

    wrap.onkeydown = (event) => { if (event.key === "Escape" && chosen.length) { chosen = []; render(); } };
    render();
  }

  // Pages that list matches refresh their main part when matches start or end.
  function liveFeed() {
    if (document.body.dataset.live !== "feed") return;
    let timer = null;
    const refresh = async () => {
      timer = null;
      const main = document.getElementById("main");
      if (main.contains(document.activeElement) && document.activeElement.matches("input, select, textarea")) return;
      const response = await fetch(location.href, { credentials: "same-origin", headers: { Accept: "text/html" } });
      if (!response.ok) return;
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("main");
      if (fresh) { main.replaceChildren(...fresh.childNodes); document.body.dataset.refreshed = String(Date.now()); }
    };
    socket("/ws/feed", (message) => {
      if (message.type === "changed" && timer === null) timer = setTimeout(refresh, 300);
    });
  }

  document.addEventListener("DOMContentLoaded", liveFeed);
  return { data, el, socket, drawBoard };
})();

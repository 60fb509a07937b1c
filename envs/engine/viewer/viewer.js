"use strict";
// chuanma replay viewer: renders the frames that envs/engine/replay_view.py inlined as JSON (no network).
(function () {
  const DATA = JSON.parse(document.getElementById("replay-data").textContent);
  const N = DATA.players.length;
  const SUIT_COLOUR = { m: "#b3261e", p: "#1f5fa8", s: "#1e7a3c" };
  const SUIT_ZH = { m: "万", p: "筒", s: "条" };
  const HONOR = { "1z": ["东", "#222"], "2z": ["南", "#222"], "3z": ["西", "#222"], "4z": ["北", "#222"],
                  "5z": ["中", "#c0241b"], "6z": ["发", "#1e7a3c"], "7z": ["白", "#1f5fa8"] };
  const HOW = { zimo: "自摸 self-draw", dianpao: "点炮 on a discard", qianggang: "抢杠 robbing a kong",
                instant: "四红中 instant", qinghu: "请胡" };
  const state = { hand: 0, frame: 0, view: "all" };

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") node.textContent = v; else node.setAttribute(k, v);
    }
    for (const c of children || []) node.appendChild(c);
    return node;
  }
  const SVG_NS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  // One tile as inline SVG: suit colour, rank digit and Chinese character; kind < 0 is a face-down tile.
  function tile(kind, opts) {
    opts = opts || {};
    const w = opts.small ? 22 : 30, h = opts.small ? 30 : 40;
    const s = svg("svg", { width: w, height: h, viewBox: "0 0 30 40", role: "img" });
    const wrap = el("span", { class: "tile" + (opts.cls ? " " + opts.cls : "") });
    if (kind === null || kind === undefined || kind < 0) {
      s.appendChild(svg("rect", { class: "face", x: 1, y: 1, width: 28, height: 38, rx: 4, fill: "#2f7d5b", stroke: "#1c4a36", "stroke-width": 1.5 }));
      s.appendChild(svg("rect", { x: 5, y: 5, width: 20, height: 30, rx: 2, fill: "none", stroke: "#9fd3b8", "stroke-width": 1 }));
      s.setAttribute("aria-label", "hidden tile");
      wrap.appendChild(s);
      return wrap;
    }
    const info = DATA.tiles[kind];
    const code = info.code, suit = code[1];
    s.setAttribute("aria-label", code + " " + info.zh);
    s.appendChild(svg("rect", { class: "face", x: 1, y: 1, width: 28, height: 38, rx: 4, fill: "#fffdf5", stroke: "#8c8672", "stroke-width": 1.5 }));
    if (suit === "z") {
      const [ch, colour] = HONOR[code];
      if (code === "7z") s.appendChild(svg("rect", { x: 7, y: 9, width: 16, height: 22, fill: "none", stroke: colour, "stroke-width": 2 }));
      else s.appendChild(svg("text", { x: 15, y: 27, "text-anchor": "middle", "font-size": 19, "font-weight": "bold", fill: colour }, ch));
    } else {
      const colour = SUIT_COLOUR[suit];
      s.appendChild(svg("text", { x: 15, y: 20, "text-anchor": "middle", "font-size": 18, "font-weight": "bold", fill: colour, "font-family": "sans-serif" }, code[0]));
      s.appendChild(svg("text", { x: 15, y: 35, "text-anchor": "middle", "font-size": 12, fill: colour }, SUIT_ZH[suit]));
    }
    s.appendChild(svg("title", {}, info.zh + " " + code));
    wrap.appendChild(s);
    return wrap;
  }
  function signed(v) { return (v > 0 ? "+" : "") + v; }
  function seatName(s) { return "S" + s + " " + DATA.players[s]; }
  const hand = () => DATA.hands[state.hand];
  const frame = () => hand().frames[state.frame];

  function renderSeat(s, f, prev) {
    const h = hand();
    const visible = state.view === "all" || Number(state.view) === s || f.phase === "end";
    const cls = "seat" + (f.won[s] ? " won" : "") + (f.seat === s ? " acting" : "");
    const head = el("div", { class: "seat-head" }, [
      el("span", { class: "seat-name", text: seatName(s) + (h.dealer === s ? " (dealer 庄)" : "") }),
      el("span", { class: "score", id: "score-" + s, "data-testid": "score-" + s, text: signed(f.scores[s]) }),
    ]);
    if (f.void[s] !== null && f.void[s] !== undefined) head.appendChild(el("span", { class: "badge", text: "void 缺 " + SUIT_ZH["mps"[f.void[s]]] }));
    if (f.won[s]) head.appendChild(el("span", { class: "badge", text: "won 胡" }));
    if (f.pending.includes(s) && f.phase !== "end") head.appendChild(el("span", { class: "badge", text: "to act" }));
    const handRow = el("div", { class: "row hand", "data-seat": s }, [el("span", { class: "row-label", text: "hand" })]);
    let tiles = f.hands[s].slice();
    let drawn = null;
    if (f.current === s && f.drawn !== null && f.drawn !== undefined && tiles.includes(f.drawn)) {
      tiles.splice(tiles.indexOf(f.drawn), 1);
      drawn = f.drawn;
    }
    for (const k of tiles) handRow.appendChild(tile(visible ? k : -1));
    if (drawn !== null) handRow.appendChild(tile(visible ? drawn : -1, { cls: "drawn" }));
    const meldRow = el("div", { class: "row" }, [el("span", { class: "row-label", text: "melds" })]);
    for (const m of f.melds[s]) {
      const box = el("span", { class: "meld", title: m.name + " " + m.text + (m.from !== null ? " from S" + m.from : "") });
      for (const k of m.tiles) box.appendChild(tile(k, { small: true }));
      meldRow.appendChild(box);
    }
    const river = el("div", { class: "row river" }, [el("span", { class: "row-label", text: "discards" })]);
    const lastOwn = f.discards[s].length - 1;
    const justDiscarded = prev && f.discards[s].length > prev.discards[s].length;
    f.discards[s].forEach(([k, claimed], i) => {
      let c = claimed ? "claimed" : "";
      if (justDiscarded && i === lastOwn) c += " last";
      river.appendChild(tile(k, { small: true, cls: c }));
    });
    return el("div", { class: cls, id: "seat-" + s }, [head, handRow, meldRow, river]);
  }

  function renderWin(w) {
    const div = el("div", { class: "win" });
    const src = w.from_seat !== null && w.from_seat !== undefined ? " from S" + w.from_seat : "";
    div.appendChild(el("div", { text: "S" + w.seat + " wins on " + DATA.tiles[w.tile].code + " " + DATA.tiles[w.tile].zh + src + " — " + (HOW[w.how] || w.how) }));
    const fans = el("div");
    for (const [name, v] of Object.entries(w.breakdown || {})) {
      const zh = DATA.fan_names[name];
      fans.appendChild(el("span", { class: "fan", text: (zh && zh !== name ? zh + " " : "") + name + " " + v }));
    }
    div.appendChild(fans);
    div.appendChild(el("div", { text: w.doublings + " doublings 番, " + w.payment + " per payer" }));
    const pays = (w.transfers || []).map((t) => "S" + t.payer + "→S" + t.receiver + " " + t.amount + " (" + t.reason + ")");
    if (pays.length) div.appendChild(el("div", { text: "payments: " + pays.join(", ") }));
    if (w.hand) {
      const row = el("div", { class: "row" });
      for (const k of w.hand) row.appendChild(tile(k, { small: true }));
      div.appendChild(row);
    }
    return div;
  }

  function render() {
    const h = hand(), f = frame(), prev = state.frame > 0 ? h.frames[state.frame - 1] : null;
    const table = document.getElementById("table");
    table.replaceChildren(...Array.from({ length: N }, (_, s) => renderSeat(s, f, prev)));
    const last = h.frames.length - 1;
    document.getElementById("slider").max = String(last);
    document.getElementById("slider").value = String(state.frame);
    document.getElementById("step-label").textContent = "step " + state.frame + " / " + last;
    document.getElementById("btn-back").disabled = state.frame === 0;
    document.getElementById("btn-start").disabled = state.frame === 0;
    document.getElementById("btn-forward").disabled = state.frame === last;
    document.getElementById("btn-end").disabled = state.frame === last;
    const status = document.getElementById("status");
    status.replaceChildren(
      el("div", { text: "phase " + f.phase + " · wall 牌墙 " + f.wall + " tiles left" }),
      el("div", { text: "hand " + (h.hand_index + 1) + " · dealer S" + h.dealer }),
    );
    if (f.indicator !== null && f.indicator !== undefined) status.appendChild(el("div", {}, [el("span", { text: "indicator " }), tile(f.indicator, { small: true })]));
    if (f.phase === "end") {
      const res = h.result;
      status.appendChild(el("div", { class: "final", id: "final-scores", text: "final scores: " + res.scores.map((v, s) => "S" + s + " " + signed(v)).join(", ") + (res.exhausted ? " (wall exhausted 流局)" : "") }));
    }
    const dec = document.getElementById("decision");
    dec.replaceChildren();
    const viewer = state.view === "all" ? null : Number(state.view);
    const ownView = viewer === null || viewer === f.seat || f.phase === "end";
    const hidden = !ownView && f.visible_to && !f.visible_to.includes(viewer);
    if (f.seat === null) dec.appendChild(el("div", { text: "the deal" }));
    else {
      const what = hidden ? "(hidden from this seat)" : f.action + " — " + f.n_legal + " legal option" + (f.n_legal === 1 ? "" : "s");
      dec.appendChild(el("div", { text: "S" + f.seat + " (" + DATA.players[f.seat] + "): " + what }));
      for (const entry of ownView ? f.agent || [] : []) {
        if (!entry.probs) continue;
        const rows = Object.entries(entry.probs).sort((a, b) => b[1] - a[1]);
        const tbl = el("table", { class: "probs" });
        for (const [name, p] of rows) {
          const bar = el("div", { class: "bar", style: "width:" + Math.round(100 * p) + "px" });
          tbl.appendChild(el("tr", { class: name === entry.chosen ? "chosen" : "" }, [
            el("td", { text: name }), el("td", { text: (100 * p).toFixed(1) + "%" }), el("td", {}, [bar])]));
        }
        dec.appendChild(tbl);
      }
    }
    const wins = document.getElementById("wins");
    const sofar = h.frames.slice(0, state.frame + 1).flatMap((fr) => fr.wins);
    wins.replaceChildren();
    const results = h.result.wins;
    sofar.forEach((w, i) => wins.appendChild(renderWin(Object.assign({}, w, { transfers: (results[i] || {}).transfers }))));
    if (!sofar.length) wins.appendChild(el("div", { text: "no win yet" }));
    const log = document.getElementById("log");
    const lines = viewer === null || f.phase === "end" ? f.log : f.log_seat[viewer];
    log.replaceChildren(...lines.map((line) => el("li", { text: line })));
  }

  function go(i) {
    const last = hand().frames.length - 1;
    state.frame = Math.max(0, Math.min(last, i));
    render();
  }
  function seek(pred) {
    const fr = hand().frames;
    for (let i = state.frame + 1; i < fr.length; i++) if (pred(fr[i])) return go(i);
    go(fr.length - 1);
  }
  const choice = (f) => f.n_legal > 1 && (state.view === "all" || f.seat === Number(state.view));

  function init() {
    document.title = DATA.title;
    document.getElementById("title").textContent = DATA.title;
    document.getElementById("subtitle").textContent = DATA.description + " · players: " + DATA.players.map((p, s) => "S" + s + " " + p).join(", ");
    const hs = document.getElementById("hand-select");
    DATA.hands.forEach((h, i) => hs.appendChild(el("option", { value: i, text: "hand " + (h.hand_index + 1) })));
    hs.onchange = () => { state.hand = Number(hs.value); state.frame = 0; render(); };
    const vs = document.getElementById("view-select");
    for (let s = 0; s < N; s++) vs.appendChild(el("option", { value: s, text: "seat S" + s + "'s view" }));
    vs.onchange = () => { state.view = vs.value; render(); };
    document.getElementById("btn-start").onclick = () => go(0);
    document.getElementById("btn-back").onclick = () => go(state.frame - 1);
    document.getElementById("btn-forward").onclick = () => go(state.frame + 1);
    document.getElementById("btn-end").onclick = () => go(hand().frames.length - 1);
    document.getElementById("btn-decision").onclick = () => seek(choice);
    document.getElementById("btn-win").onclick = () => seek((f) => f.wins.length > 0);
    document.getElementById("btn-hand-end").onclick = () => seek((f) => f.hand_end);
    document.getElementById("slider").oninput = (e) => go(Number(e.target.value));
    document.addEventListener("keydown", (e) => {
      if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
      const keys = { ArrowRight: () => go(state.frame + 1), ArrowLeft: () => go(state.frame - 1), Home: () => go(0),
                     End: () => go(hand().frames.length - 1), d: () => seek(choice),
                     w: () => seek((f) => f.wins.length > 0), e: () => seek((f) => f.hand_end) };
      if (keys[e.key]) { keys[e.key](); e.preventDefault(); }
    });
    render();
  }
  init();
})();

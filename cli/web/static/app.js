// The pages of `jabba serve`: advice (index.html, one page for every game: /?game=NAME)
// and play (play.html). Plain JavaScript, no build step; everything comes from the JSON
// API (docs/play.md): the advice page builds its game's form from the game's description
// (GET /api/meta?game=NAME, "advice": its form, cards, player counts, example).
"use strict";

const $ = (selector, root = document) => root.querySelector(selector);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
};
// replaceChildren without the nulls of optional parts (the DOM would print "null")
const fill = (node, ...children) => node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
const pct = (p) => `${Math.round(100 * p)}%`;
const signed = (x, digits = 3) => (x >= 0 ? "+" : "") + x.toFixed(digits);

async function api(path, options = {}) {
  const response = await fetch(path, {
    headers: {"Content-Type": "application/json"}, ...options,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  let data = null;
  try { data = await response.json(); } catch (err) { data = null; }
  if (!response.ok) {
    const detail = data && data.detail ? data.detail : response.status === 413
      ? "the request is over the server's size limit" : `${response.status} ${response.statusText}`;
    throw new Error(detail);
  }
  return data;
}

// Warm-up banner: the server compiles its kernels at start-up.
async function watchStatus() {
  const banner = $("#status");
  for (;;) {
    let status;
    try { status = await api("/api/status"); } catch (err) {
      banner.hidden = false; banner.className = "status failed";
      banner.textContent = `The server does not answer (${err.message}).`;
      return;
    }
    if (status.state === "ready") {
      banner.hidden = true; document.body.dataset.ready = "yes";
      return;
    }
    banner.hidden = false;
    banner.className = `status ${status.state}`;
    banner.textContent = status.state === "warming"
      ? `Warming up: ${status.detail}. Answers wait until it is done.`
      : status.detail;
    if (status.state === "failed") { document.body.dataset.ready = "failed"; return; }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

// POST /api/hint from an advice page: the request shown in #request, the Ask button busy
// meanwhile, the answer kept in window.lastAnswer (the browser tests read it), then
// show(answer) or showError(message).
async function askHint(query, body, show, showError) {
  $("#request").textContent = `POST /api/hint?${query}\n${JSON.stringify(body, null, 2)}`;
  $("#ask").disabled = true; $("#ask").textContent = "Thinking...";
  try {
    const answer = await api(`/api/hint?${query}`, {method: "POST", body});
    window.lastAnswer = answer;
    $("#error").hidden = true;
    show(answer);
  } catch (err) {
    window.lastAnswer = null;
    $("#result").hidden = true;
    showError(err.message);
  } finally {
    $("#ask").disabled = false; $("#ask").textContent = "Ask";
  }
}

function fillSelect(select, values, chosen, label = (v) => v) {
  select.replaceChildren(...values.map((v) => el("option", {value: v, selected: String(v) === String(chosen) ? "" : null}, label(v))));
}

// Advice ------------------------------------------------------------------------------

// The advice page: the game picker, then the form the game's description names (a
// <template> of index.html), which sends the situation to POST /api/hint.
function advicePage(meta) {
  const game = meta.advice;
  document.title = `${game.title}: advice`;
  $("#title").textContent = game.title;
  const titles = Object.fromEntries(meta.games.map((g) => [g.name, g.title]));
  fillSelect($("#game"), meta.games.map((g) => g.name), game.game, (name) => titles[name]);
  $("#game").addEventListener("change", (e) => {
    window.location.search = `?game=${encodeURIComponent(e.target.value)}`;
  });
  $("#form").replaceChildren($(`#form-${game.form}`).content.cloneNode(true));
  for (const slot of document.querySelectorAll("#form [data-options]")) {  // shared options
    slot.replaceWith($(`#options-${slot.dataset.options}`).content.cloneNode(true));
  }
  FORMS[game.form](game);
}

function showError(message) {
  $("#answer").hidden = false;
  $("#error").hidden = false; $("#error").textContent = message;
}
function hideError() { $("#error").hidden = true; }

// The form "cards" (the Love Letter engine's games): a situation by clicking its cards into
// places, or a pasted log. What the table can see of a play, by the card's effect
// (docs/hint.md "What the table saw").
const TARGETED = new Set(["guess", "guess_counter", "peek", "peek_or_set_aside", "compare",
  "eliminate_if_side", "look_may_trade", "steal_hand", "discard_redraw", "trade_hands"]);
const MAY_CHOOSE_ONESELF = new Set(["discard_redraw"]);  // the classic Prince (C4)
const NAMES_A_NUMBER = new Set(["guess", "guess_counter"]);
const CAN_HIT = new Set(["guess", "guess_counter", "compare", "eliminate_if_side"]);
const LOOKS = new Set(["peek", "peek_or_set_aside", "compare", "look_may_trade"]);

function cardsForm(game) {
  const byShort = Object.fromEntries(game.cards.map((c) => [c.short, c]));
  const setAside = game.cards.some((c) => c.effect === "peek_or_set_aside");  // R2-D2's
  const returner = game.cards.find((c) => c.effect === "draw_keep_return");  // Leia, Chancellor
  const state = {
    mode: "cards", active: "hand", editing: null,
    hand: [], face_up: [], areas: {}, out: new Set(), protected: new Set(),
    saw: {}, seen_by: {}, set_aside: null, bottom: [],
  };
  const players = () => Number($("#players").value);
  const seat = () => Number($("#seat").value);

  fillSelect($("#players"), game.players, 2);
  fillSelect($("#agenda"), game.agendas, game.agendas[0]);
  $("#agenda-field").hidden = !game.agendas.length;
  const seats = () => fillSelect($("#seat"), [...Array(players()).keys()], Math.min(seat() || 0, players() - 1));
  seats();
  $("#players").addEventListener("change", () => { seats(); prune(); render(); });
  $("#seat").addEventListener("change", render);

  function prune() {  // drop what a smaller table has no seat for
    const n = players();
    for (const key of Object.keys(state.areas)) if (Number(key) >= n) delete state.areas[key];
    for (const table of [state.saw, state.seen_by]) {
      for (const key of Object.keys(table)) if (Number(key) >= n) delete table[key];
    }
    for (const set of [state.out, state.protected]) for (const s of [...set]) if (s >= n) set.delete(s);
    if (n !== 2) state.face_up = [];
    state.editing = null;
    if (!document.querySelector(`[data-field="${state.active}"]`)) state.active = "hand";
  }

  // Where a clicked card goes: [label, getter of its list, most cards]
  function place(field) {
    const [kind, arg] = field.split(":");
    if (kind === "hand") return {label: "your hand", max: 2, list: state.hand};
    if (kind === "face_up") return {label: "the face-up cards", max: game.face_up_2p, list: state.face_up};
    if (kind === "area") {
      state.areas[arg] = state.areas[arg] || [];
      return {label: `p${arg}'s play area`, max: 30, list: state.areas[arg], area: true};
    }
    if (kind === "bottom") return {label: "the cards you put under the deck", max: 2, list: state.bottom};
    return {label: kind === "saw" ? `what you know p${arg} holds` : kind === "seen_by"
      ? `your card p${arg} knows` : "the set-aside card", max: 1, single: kind, arg};
  }

  function addCard(short) {
    const target = place(state.active);
    if (target.single) {
      if (target.single === "set_aside") state.set_aside = short;
      else state[target.single][target.arg] = short;
    } else {
      if (target.list.length >= target.max) {
        showError(`${target.label} holds at most ${target.max} card${target.max > 1 ? "s" : ""}; click a card there to remove it`);
        return;
      }
      target.list.push(target.area ? {card: short, took: false, from: null, target: null,
        named: null, named_back: null, hit: false, traded: false, seen: null, shown: null} : short);
      if (target.area && TARGETED.has(byShort[short].effect)) state.editing = [state.active.split(":")[1], target.list.length - 1];
    }
    hideError();
    render();
  }

  function token(item, owner) {
    const name = item.card;
    if (item.took) {
      const from = players() === 2 ? "" : `@${item.from === null ? (owner === 0 ? 1 : 0) : item.from}`;
      return `took:${name}${from}`;
    }
    let text = name;
    if (item.target !== null) text += item.target === "set-aside" ? "@set-aside" : `@${item.target}`;
    if (item.named !== null) text += `:${item.named}`;
    if (item.named !== null && item.named_back !== null) text += `:${item.named_back}`;
    if (item.hit) text += ":hit";
    if (item.traded) text += ":traded";
    if (item.seen) text += `:${item.seen}`;
    if (item.seen && item.shown) text += `:${item.shown}`;
    return text;
  }

  function counts() {
    const used = {};
    const add = (c) => { if (c) used[c] = (used[c] || 0) + 1; };
    state.hand.forEach(add); state.face_up.forEach(add); state.bottom.forEach(add);
    for (const area of Object.values(state.areas)) area.forEach((item) => add(item.card));
    Object.values(state.saw).forEach(add); add(state.set_aside);
    return used;
  }

  function chip(text, onclick, extra = "") {  // a card or area token, shown with the card's name
    const took = text.startsWith("took:");
    const short = text.replace(/^took:/, "").split(/[@:]/)[0];
    const c = byShort[short];
    const label = (took ? "took " : "") + (c ? c.name : short) + text.replace(/^took:/, "").slice(short.length);
    return el("button", {type: "button", class: `chip ${c ? c.side : ""} ${extra}`, "data-token": text, onclick}, label);
  }

  function field(name, title, content, extra = null) {
    return el("div", {class: `field ${state.active === name ? "active" : ""}`, "data-field": name},
      el("button", {type: "button", class: "field-name", onclick: () => { state.active = name; render(); }}, title),
      el("span", {class: "chips"}, content.length ? content : el("span", {class: "empty"}, "none")),
      extra);
  }

  function render() {
    const n = players(), me = seat();
    const rows = [field("hand", "Your hand", state.hand.map((c, i) => chip(c, () => { state.hand.splice(i, 1); render(); })))];
    if (n === 2) {
      rows.push(field("face_up", "Face-up cards", state.face_up.map((c, i) => chip(c, () => { state.face_up.splice(i, 1); render(); }))));
    }
    for (let p = 0; p < n; p++) {
      const area = state.areas[p] || [];
      const flags = el("span", {class: "flags"},
        p === me ? null : el("label", {class: "check"}, el("input", {type: "checkbox", "data-out": p, checked: state.out.has(p) ? "" : null,
          onchange: (e) => { e.target.checked ? state.out.add(p) : state.out.delete(p); }}), "out"),
        el("label", {class: "check"}, el("input", {type: "checkbox", "data-protected": p, checked: state.protected.has(p) ? "" : null,
          onchange: (e) => { e.target.checked ? state.protected.add(p) : state.protected.delete(p); }}), "protected"));
      rows.push(field(`area:${p}`, `p${p}'s play area${p === me ? " (you)" : ""}`,
        area.map((item, i) => chip(token(item, p), () => { state.editing = [String(p), i]; render(); },
          state.editing && state.editing[0] === String(p) && state.editing[1] === i ? "editing" : "")), flags));
    }
    const knows = [];
    for (let p = 0; p < n; p++) {
      if (p === me) continue;
      knows.push(field(`saw:${p}`, `You know p${p} holds`, state.saw[p] ? [chip(state.saw[p], () => { delete state.saw[p]; render(); })] : []));
      knows.push(field(`seen_by:${p}`, `p${p} knows your`, state.seen_by[p] ? [chip(state.seen_by[p], () => { delete state.seen_by[p]; render(); })] : []));
    }
    if (setAside) knows.push(field("set_aside", "The set-aside card (R2-D2)", state.set_aside ? [chip(state.set_aside, () => { state.set_aside = null; render(); })] : []));
    if (returner) knows.push(field("bottom", `Under the deck (your ${returner.name})`, state.bottom.map((c, i) => chip(c, () => { state.bottom.splice(i, 1); render(); }))));
    const open = $("#knowledge") ? $("#knowledge").open : false;
    const details = el("details", {id: "knowledge", open: open || knows.some((k) => k.classList.contains("active")) ? "" : null},
      el("summary", {}, "What you know of hidden cards"), knows);
    fill($("#fields"), ...rows, details);
    $("#active-label").textContent = `go to ${place(state.active).label}`;
    const used = counts();
    fill($("#cards"), ...game.cards.map((c) => el("button", {
      type: "button", class: `card ${c.side}`, "data-card": c.short, title: c.text, onclick: () => addCard(c.short)},
    el("b", {}, String(c.number)), ` ${c.name} `, el("small", {}, `${c.copies - (used[c.short] || 0)}/${c.copies}`))));
    renderEditor();
  }

  function renderEditor() {
    const box = $("#editor");
    if (!state.editing || !state.areas[state.editing[0]] || !state.areas[state.editing[0]][state.editing[1]]) {
      box.hidden = true; state.editing = null; return;
    }
    const [owner, index] = state.editing;
    const item = state.areas[owner][index];
    const n = players();
    const effect = byShort[item.card].effect;
    const seatOptions = [...Array(n).keys()].filter((p) => p !== Number(owner) || MAY_CHOOSE_ONESELF.has(effect));
    const select = (name, values, current, labels) => el("select", {"data-edit": name, onchange: (e) => {
      const v = e.target.value;
      item[name] = v === "" ? null : (name === "target" && v === "set-aside" ? v : (["seen", "shown"].includes(name) ? v : Number(v)));
      render();
    }}, el("option", {value: ""}, "not said"), values.map((v, i) => el("option", {value: v, selected: String(current) === String(v) ? "" : null}, labels ? labels[i] : String(v))));
    const check = (name, label) => el("label", {class: "check"}, el("input", {type: "checkbox", "data-edit": name, checked: item[name] ? "" : null,
      onchange: (e) => { item[name] = e.target.checked; render(); }}), label);
    const cardNames = game.cards.map((c) => c.short);
    const labels = game.cards.map((c) => c.name);
    const played = !item.took;
    const targets = effect === "peek_or_set_aside" ? [...seatOptions, "set-aside"] : seatOptions;
    box.hidden = false;
    fill(box, 
      el("p", {}, el("b", {}, byShort[item.card].name), ` in p${owner}'s play area: what the table saw`),
      el("div", {class: "row"},
        check("took", "taken with Boba Fett (not played)"),
        n > 2 && item.took ? el("label", {}, "from ", select("from", seatOptions, item.from, seatOptions.map((p) => `p${p}`))) : null),
      played && TARGETED.has(effect) ? el("div", {class: "row"},
        el("label", {}, "chose ", select("target", targets, item.target, targets.map((p) => (p === "set-aside" ? "the set-aside card" : `p${p}`)))),
        NAMES_A_NUMBER.has(effect) ? el("label", {}, "named ", select("named", game.numbers, item.named)) : null,
        effect === "guess_counter" ? el("label", {}, "named back ", select("named_back", game.numbers, item.named_back)) : null,
        CAN_HIT.has(effect) ? check("hit", effect === "compare" ? "somebody went out" : "the chosen went out") : null,
        effect === "look_may_trade" ? check("traded", "traded hands") : null) : null,
      played && LOOKS.has(effect) ? el("div", {class: "row"},
        el("label", {}, "card seen ", select("seen", cardNames, item.seen, labels)),
        effect === "peek" || effect === "peek_or_set_aside" ? null :
          el("label", {}, effect === "compare" ? "card shown " : "card got ", select("shown", cardNames, item.shown, labels))) : null,
      el("div", {class: "row"},
        el("button", {type: "button", onclick: () => { state.areas[owner].splice(index, 1); state.editing = null; render(); }}, "Remove"),
        el("button", {type: "button", onclick: () => { state.editing = null; render(); }}, "Done")));
  }

  function situation() {
    const data = {game: game.game, players: players()};
    if (game.agendas.length) data.agenda = $("#agenda").value;
    if (state.mode === "log") {
      const text = $("#log").value;
      if (!/^\s*p\d+\s+hand:/i.test(text)) data.seat = seat();
      data.log = text;
      return data;
    }
    data.seat = seat();
    data.hand = [...state.hand];
    if (players() === 2 && state.face_up.length) data.face_up = [...state.face_up];
    const areas = {};
    for (const [p, area] of Object.entries(state.areas)) if (area.length) areas[p] = area.map((item) => token(item, Number(p)));
    if (Object.keys(areas).length) data.areas = areas;
    if (state.out.size) data.out = [...state.out].sort();
    if (state.protected.size) data.protected = [...state.protected].sort();
    if (Object.keys(state.saw).length) data.saw = {...state.saw};
    if (Object.keys(state.seen_by).length) data.seen_by = {...state.seen_by};
    if (state.set_aside) data.set_aside = state.set_aside;
    if (state.bottom.length) data.bottom = [...state.bottom];
    if ($("#deck").value !== "") data.deck = Number($("#deck").value);
    return data;
  }

  async function ask() {
    const body = situation();
    const query = new URLSearchParams({seconds: $("#seconds").value || "0.25", seed: $("#seed").value || "0"});
    if (!$("#search").checked) query.set("search", "false");
    else if ($("#search-iterations").value !== "") query.set("search_iterations", $("#search-iterations").value);
    else query.set("search_seconds", $("#search-seconds").value || "1");
    await askHint(query, body, showAnswer, showError);
  }

  function showAnswer(a) {
    $("#answer").hidden = false; $("#result").hidden = false;
    const s = a.situation;
    $("#summary").textContent = `${s.players} players, ${s.agenda || s.game}, you are seat ${s.seat}: hand ${s.hand.join(", ")}; deck ${s.deck}`;
    $("#recommendation").textContent = `Recommended: ${a.recommendation.action}`;
    // With the search: its probability and value (the re-solved play of everyone) beside
    // the table's probability and the rollout EV (the table plays on), as `jabba hint` shows.
    const search = a.policy.search;
    fill($("#plays thead"), el("tr", {},
      el("th", {}, "play ", el("span", {class: "wide"}, "(best target and number)")),
      search.used ? [el("th", {class: "search"}, "search"), el("th", {class: "search"}, "search EV")] : null,
      el("th", {class: search.used ? "beside" : ""}, "table"), el("th", {}, "EV"), el("th", {class: "vs"}, "vs best")));
    fill($("#plays tbody"), ...a.plays.map((p) => el("tr", {class: p.full_action === a.recommendation.action ? "best" : ""},
      el("td", {}, p.full_action),
      search.used ? [el("td", {class: "num search"}, pct(p.search_probability)),
        el("td", {class: "num search"}, signed(p.search_value))] : null,
      el("td", {class: `num ${search.used ? "beside" : ""}`}, p.probability === null ? "-" : pct(p.probability)),
      el("td", {class: "num"}, `${signed(p.ev)} ± ${p.ev_ci95.toFixed(3)}`),
      el("td", {class: "num vs"}, `${signed(p.vs_best)} ± ${p.vs_best_ci95.toFixed(3)}`))));
    const note = $("#search-note");
    note.hidden = false;
    note.textContent = search.used
      ? `Search: ${search.construction}, ${search.iterations} iterations, depth: ${search.depth} (${search.nodes.toLocaleString()} nodes). ` +
        "Search EV: under the re-solved play of everyone; EV: the table plays on, by rollouts."
      : `Search not used: ${search.reason}.`;
    fill($("#steps"), ...a.recommendation.steps.map((step) => {
      if (step.chosen_by === "search") {
        const options = [...step.options].sort((x, y) => y.search_probability - x.search_probability).slice(0, 5);
        return el("p", {class: "small"}, `then ${step.decision}: `, el("b", {}, step.chosen),
          ` (search: ${options.map((o) => `${o.action} ${pct(o.search_probability)}, ${signed(o.search_value, 2)}`).join("; ")}${step.options.length > 5 ? "; ..." : ""})`);
      }
      const options = [...step.options].sort((x, y) => y.ev - x.ev).slice(0, 5);
      return el("p", {class: "small"}, `then ${step.decision}: `, el("b", {}, step.chosen),
        step.chosen_by === "value" ? "" : ` [${step.chosen_by}]`,
        ` (EV: ${options.map((o) => `${o.action} ${signed(o.ev, 2)} ± ${o.ev_ci95.toFixed(2)}`).join(", ")}${step.options.length > 5 ? ", ..." : ""})`);
    }));
    fill($("#opponents"), ...a.opponents.map((o) => el("div", {class: "opponent"},
      el("h4", {}, `p${o.seat}${o.status === "in" ? "" : ` (${o.status})`}`),
      o.status === "out" ? el("p", {class: "small"}, "out of the round") :
        o.hand.slice(0, 8).map((c) => el("div", {class: "bar"},
          el("span", {class: "fill", style: `width:${(100 * c.probability).toFixed(1)}%`}),
          el("span", {class: "label"}, `${c.card} ${pct(c.probability)}`))))));
    const r = a.rollouts;
    $("#source").textContent = `policy: ${a.policy.detail}; posterior: ${a.posterior.basis} (${a.posterior.worlds} worlds); ` +
      `values from ${r.count.toLocaleString()} rollouts (${pct(r.from_table)} of their decisions from the table); ${a.seconds.toFixed(2)} s`;
  }

  $("#tab-cards").addEventListener("click", () => setMode("cards"));
  $("#tab-log").addEventListener("click", () => setMode("log"));
  function setMode(mode) {
    state.mode = mode;
    $("#tab-cards").classList.toggle("active", mode === "cards");
    $("#tab-log").classList.toggle("active", mode === "log");
    $("#by-cards").hidden = mode !== "cards";
    $("#by-log").hidden = mode !== "log";
  }
  $("#ask").addEventListener("click", ask);
  $("#clear").addEventListener("click", () => {
    Object.assign(state, {hand: [], face_up: [], areas: {}, out: new Set(), protected: new Set(),
      saw: {}, seen_by: {}, set_aside: null, bottom: [], editing: null, active: "hand"});
    $("#log").value = ""; $("#answer").hidden = true; render();
  });
  render();
}

// The form "events" (the Han Solo card game): a situation set up by clicking (your hand,
// the pot, the round's moves as a log) and POST /api/hint's answer, the same as
// `jabba hint --game han_solo --json` (docs/han-solo.md "Hints").
function eventsForm(game) {
  const hs = game;
  const state = {hand: [], log: [], pending: null, active: "hand"};
  const players = () => Number($("#players").value);
  const seat = () => Number($("#seat").value);
  const colour = (card) => card.split(" ")[0];  // green, red or blue (style.css)

  fillSelect($("#players"), hs.players, 2);
  $("#rollouts").value = "1000";  // han_solo's default count (its hint's DEFAULT_ROLLOUTS)
  function seats() {
    fillSelect($("#seat"), [...Array(players()).keys()], Math.min(seat() || 0, players() - 1));
    fillSelect($("#actor"), [...Array(players()).keys()], 0, (p) => `p${p}`);
    fill($("#pot"), "Pot ", [...Array(players()).keys()].map((i) => {
      const select = el("select", {"data-pot": i});
      fillSelect(select, hs.tokens, i === 0 ? "green" : "gold");
      return select;
    }));
  }
  seats();
  $("#players").addEventListener("change", () => { seats(); render(); });
  $("#seat").addEventListener("change", render);

  function add(line) { state.log.push(line); state.pending = null; render(); }
  function move(kind) {
    const p = Number($("#actor").value);
    if (kind === "discard" || (kind === "draw" && p === seat())) {
      state.pending = {kind, p}; state.active = "log"; render(); return;
    }
    add(`p${p} ${kind}`);
  }
  document.querySelectorAll("[data-move]").forEach((b) => b.addEventListener("click", () => move(b.dataset.move)));
  document.querySelectorAll("[data-dice]").forEach((b) => b.addEventListener("click", () => add(`dice ${b.dataset.dice}`)));
  $("#flip").addEventListener("click", () => { state.pending = {kind: "flip"}; state.active = "log"; render(); });
  $("#to-hand").addEventListener("click", () => { state.pending = null; state.active = "hand"; render(); });
  $("#undo").addEventListener("click", () => { state.log.pop(); state.pending = null; render(); });

  function clickCard(card) {
    if (state.pending) {
      const {kind, p} = state.pending;
      add(kind === "flip" ? `flip ${card}` : `p${p} ${kind} ${card}`);
      return;
    }
    if (state.hand.length >= hs.max_hand) { showError(`a hand holds at most ${hs.max_hand} cards; click one to remove it`); return; }
    state.hand.push(card);
    render();
  }

  function render() {
    $("[data-field=hand]").classList.toggle("active", state.active === "hand" && !state.pending);
    fill($("#hand"), state.hand.length ? state.hand.map((c, i) => el("button", {type: "button", class: `chip ${colour(c)}`,
      onclick: () => { state.hand.splice(i, 1); render(); }}, c)) : el("span", {class: "empty"}, "none"));
    fill($("#log"), state.log.map((line) => el("li", {}, line)));
    $("#pending").textContent = state.pending
      ? (state.pending.kind === "flip" ? "click the card turned up" : `click the card p${state.pending.p} ${state.pending.kind === "draw" ? "drew" : "put down"}`)
      : `cards go to your hand (${state.hand.length} now)`;
    fill($("#cards"), hs.cards.map((c) => el("button", {type: "button", class: `card ${colour(c)}`,
      "data-card": c, onclick: () => clickCard(c)}, c)));
  }

  function situation() {
    return {game: hs.game, players: players(), seat: seat(), hand: [...state.hand],
      pot: [...document.querySelectorAll("[data-pot]")].map((s) => s.value), log: state.log.join("; ")};
  }
  async function ask() {
    const body = situation();
    const query = new URLSearchParams({seed: $("#seed").value || "0", rollouts: $("#rollouts").value || "1000"});
    await askHint(query, body, show, showError);
  }

  function show(a) {
    $("#answer").hidden = false; $("#result").hidden = false;
    const s = a.situation;
    $("#summary").textContent = `${s.players} players, you are seat ${s.seat}: hand ${s.hand.join(", ")} (total ${signed(s.hand_total, 0)}); ` +
      `turn ${s.turn} of ${s.turns}, ${s.decision}; discard top ${s.discard_top || "-"}; pot ${s.pot ? s.pot.join(", ") : "unknown"}; draw pile ${s.deck}`;
    $("#recommendation").textContent = `Recommended: ${a.recommendation.action}`;
    fill($("#plays thead"), el("tr", {}, el("th", {}, "option"), el("th", {}, "then"), el("th", {}, "table"),
      el("th", {}, "EV"), el("th", {class: "vs"}, "vs best")));
    fill($("#plays tbody"), a.plays.map((p) => el("tr", {class: p.full_action === a.recommendation.action ? "best" : ""},
      el("td", {}, p.action), el("td", {}, p.full_action.split(", ").slice(1).join(", ")),
      el("td", {class: "num"}, p.probability === null ? "-" : pct(p.probability)),
      el("td", {class: "num"}, `${signed(p.ev)} ± ${p.ev_ci95.toFixed(3)}`),
      el("td", {class: "num vs"}, `${signed(p.vs_best)} ± ${p.vs_best_ci95.toFixed(3)}`))));
    fill($("#steps"), a.plays.flatMap((p) => p.steps.map((step) => el("p", {class: "small"},
      `after "${p.action}": `, [...step.options].sort((x, y) => y.ev - x.ev)
        .map((o) => `${o.action} ${signed(o.ev, 2)}`).join(", ")))));
    $("#opponents-title").textContent = "What the others hold (hand total)";
    fill($("#opponents"), a.opponents.map((o) => {
      const zero = o.total.filter((t) => t.total === 0).reduce((x, t) => x + t.probability, 0);
      return el("div", {class: "opponent"},
        el("h4", {}, `p${o.seat}: ${o.cards.map((c) => `${c.cards} cards${c.probability < 0.999 ? ` ${pct(c.probability)}` : ""}`).join(", ")}; zero ${pct(zero)}`),
        [...o.total].sort((x, y) => y.probability - x.probability).slice(0, 8).map((t) => el("div", {class: "bar"},
          el("span", {class: "fill", style: `width:${(100 * t.probability).toFixed(1)}%`}),
          el("span", {class: "label"}, `total ${signed(t.total, 0)}: ${pct(t.probability)}`))));
    }));
    const r = a.rollouts, post = a.posterior;
    $("#source").textContent = `policy: ${a.policy.detail}; posterior: ${post.basis}, ${post.worlds} worlds (effective ${Math.round(post.effective_sample_size)}); ` +
      `values from ${r.count.toLocaleString()} rollouts; ${a.seconds.toFixed(2)} s`;
  }

  $("#ask").addEventListener("click", ask);
  $("#clear").addEventListener("click", () => {
    Object.assign(state, {hand: [], log: [], pending: null, active: "hand"});
    $("#answer").hidden = true; render();
  });
  render();
}

// The form "board" (sarlaccs_pit): the Sail Barge drawn as SVG from the board's data (each
// space where its `drawing` puts it: hexagons, the guards' pentagons), the heroes, Jabba
// and the guards placed by clicking, the hand and the discard pile by clicking cards; the
// answer of POST /api/hint (`jabba hint --game sarlaccs_pit --json`) with the recommended
// move drawn as a path and every full action's EV (docs/sarlaccs-pit.md "Hints").
const SVG_NS = "http://www.w3.org/2000/svg";
const svgEl = (tag, attrs = {}, ...children) => {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== null && value !== undefined) node.setAttribute(key, value);
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) node.append(child);
  return node;
};
// Action ids of spiel_game/sarlacc/layout.py (its docstring's table)
const SP = {ANY_SPACE: 7, MOVE: 22, TARGET: 86, CHALLENGE: 90, JABBA_TO: 154, FORCE_ON_JABBA: 162,
  DRAW_ON_JABBA: 163};
const DETENTION = -1;

function boardForm(game) {
  const b = game.board;
  const posts = new Map(b.posts.map((p) => [p.space, p.guard]));
  const top = new Set(b.top_deck);
  const state = {positions: [], jabba: b.jabba_start, defeated: new Set(), hand: [], discard: [],
    tool: "hero:0", active: "hand", drawn: null};
  const players = () => Number($("#players").value);
  const seat = () => Number($("#seat").value);
  const space = (name) => b.names.indexOf(name);

  // Geometry: x in columns, y in half-rows up from the entry (the Top Deck at the top).
  const xs = b.drawing.map((p) => p[0]), ys = b.drawing.map((p) => p[1]);
  const COL = 58, HALF = 27, R = 26, PAD = 34;
  const minX = Math.min(...xs), maxY = Math.max(...ys);
  const at = (s) => s === DETENTION ? detention : [PAD + (b.drawing[s][0] - minX) * COL, PAD + (maxY - b.drawing[s][1]) * HALF];
  const width = PAD * 2 + (Math.max(...xs) - minX) * COL;
  const height = PAD * 2 + (maxY - Math.min(...ys)) * HALF + 60;
  const detention = [PAD + 10, height - 32];
  const polygon = (s) => {
    const [cx, cy] = at(s);
    const sides = posts.has(s) ? 5 : 6, turn = posts.has(s) ? -Math.PI / 2 : 0;
    return [...Array(sides).keys()].map((k) => {
      const a = turn + (2 * Math.PI * k) / sides;
      return `${(cx + R * Math.cos(a)).toFixed(1)},${(cy + R * Math.sin(a)).toFixed(1)}`;
    }).join(" ");
  };

  fillSelect($("#players"), game.players, 2);
  function seats() {
    const n = players();
    fillSelect($("#seat"), [...Array(n).keys()], Math.min(seat() || 0, n - 1));
    while (state.positions.length < n) state.positions.push(DETENTION);
    state.positions.length = n;
    const old = [...document.querySelectorAll("[data-points]")].map((i) => i.value);
    fill($("#points"), "Jedi points ", [...Array(n).keys()].map((q) => el("label", {class: "small"}, `p${q}`,
      el("input", {type: "number", min: "0", step: "1", value: old[q] || "0", "data-points": q, class: "points"}))));
    const tools = [...[...Array(n).keys()].map((q) => [`hero:${q}`, `p${q}'s hero`]), ["jabba", "Jabba"], ["guards", "Guards defeated"]];
    if (!tools.some(([key]) => key === state.tool)) state.tool = "hero:0";
    fill($("#tools"), tools.map(([key, label]) => el("button", {type: "button", role: "radio",
      class: `tool${state.tool === key ? " active" : ""}`, "aria-checked": String(state.tool === key), "data-tool": key,
      onclick: () => { state.tool = key; seats(); draw(); }}, label)));
  }
  seats();
  $("#players").addEventListener("change", () => { seats(); draw(); });
  $("#seat").addEventListener("change", draw);

  function clickSpace(s) {
    hideError();
    if (state.tool.startsWith("hero:")) {
      const q = Number(state.tool.split(":")[1]);
      state.positions[q] = state.positions[q] === s ? DETENTION : s;
    } else if (state.tool === "jabba") {
      state.jabba = s;
    } else if (posts.has(s)) {
      if (state.defeated.has(s)) state.defeated.delete(s); else state.defeated.add(s);
    } else {
      showError(`${b.names[s]} is not a guard's post; click a pentagon`);
    }
    state.drawn = null;
    draw();
  }

  function draw() {
    const svg = $("#board");
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("width", width);
    const edges = [];
    b.neighbours.forEach((adj, s) => adj.forEach((t) => {
      if (s < t) {
        const [x1, y1] = at(s), [x2, y2] = at(t);
        edges.push(svgEl("line", {x1, y1, x2, y2, class: "edge"}));
      }
    }));
    const spaces = b.names.map((name, s) => {
      const kind = s === b.jabba_start ? "jabba-start" : top.has(s) ? "top" : posts.has(s) ? "post" : s === b.entry ? "entry" : "tan";
      const [cx, cy] = at(s);
      const guard = posts.has(s) && !state.defeated.has(s) ? posts.get(s) : null;
      return svgEl("g", {class: `space ${kind}${posts.has(s) && state.defeated.has(s) ? " defeated" : ""}`, "data-space": name,
        onclick: () => clickSpace(s)},
      svgEl("title", {}, name + (posts.has(s) ? ` (${posts.get(s)}${state.defeated.has(s) ? ", defeated" : ""})` : "")),
      svgEl("polygon", {points: polygon(s)}),
      guard ? svgEl("text", {x: cx, y: cy + 5, class: "guard"}, guard === "gamorrean" ? "G" : guard === "nikto" ? "N" : "B")
        : svgEl("text", {x: cx, y: cy + 4, class: "name"}, name));
    });
    const [jx, jy] = at(state.jabba);
    const jabba = svgEl("g", {class: "piece jabba"}, svgEl("circle", {cx: jx, cy: jy, r: R - 6}),
      svgEl("text", {x: jx, y: jy + 5}, "J"));
    const inDetention = [];
    const heroes = state.positions.map((p, q) => {
      let [hx, hy] = at(p);
      if (p === DETENTION) { hx += 70 + 26 * inDetention.length; inDetention.push(q); }
      return svgEl("g", {class: `piece hero h${q}${q === seat() ? " you" : ""}`, "data-hero": q},
        svgEl("circle", {cx: hx, cy: hy, r: 12}), svgEl("text", {x: hx, y: hy + 4}, `p${q}`));
    });
    const box = svgEl("g", {class: "detention", "data-space": "detention", onclick: () => {
      if (state.tool.startsWith("hero:")) { state.positions[Number(state.tool.split(":")[1])] = DETENTION; state.drawn = null; draw(); }
    }}, svgEl("rect", {x: 6, y: height - 52, width: width - 12, height: 40, rx: 6}),
    svgEl("text", {x: detention[0] + 4, y: detention[1] + 4, class: "label"}, "Detention"));
    const path = state.drawn ? pathDrawing(state.drawn) : [];
    fill(svg, svgEl("defs", {}, svgEl("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 8, refY: 5,
      markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse"}, svgEl("path", {d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead"}))),
    box, edges, spaces, path, jabba, heroes);
    $("#where").textContent = state.positions.map((p, q) => `p${q} ${p === DETENTION ? "detention" : b.names[p]}`).join(", ") +
      `; Jabba ${b.names[state.jabba]}; guards defeated ${state.defeated.size ? [...state.defeated].map((s) => b.names[s]).join(", ") : "none"}`;
    renderCards();
  }

  // The drawing of a full action: the hero's walk to its end (a shortest route on the
  // board, for the eye: the engine counts the exact steps), then the challenge, the swap
  // or The Force on Jabba.
  function pathDrawing({ids, from}) {
    const out = [];
    const move = ids.find((a) => a >= SP.MOVE && a < SP.TARGET);
    const start = from === DETENTION ? b.entry : from;
    if (move !== undefined) {  // Move To Any Empty Space (S7) jumps straight to its end
      const jump = ids[0] === SP.ANY_SPACE;
      const route = [...(from === DETENTION || jump ? [from] : []),
        ...(jump ? [move - SP.MOVE] : shortestRoute(start, move - SP.MOVE))];
      const points = route.map((s) => at(s).join(",")).join(" ");
      out.push(svgEl("polyline", {points, class: `path${jump ? " jump" : ""}`, "marker-end": "url(#arrow)",
        "data-path": route.map((s) => s === DETENTION ? "detention" : b.names[s]).join(" ")}));
    }
    const end = move !== undefined ? move - SP.MOVE : start;
    for (const a of ids) {
      let target = null;
      if (a >= SP.CHALLENGE && a < SP.JABBA_TO) target = a - SP.CHALLENGE;
      if (a === SP.FORCE_ON_JABBA || a === SP.DRAW_ON_JABBA) target = state.jabba;
      if (target !== null) {
        const [x1, y1] = at(end), [x2, y2] = at(target);
        out.push(svgEl("line", {x1, y1, x2, y2, class: "challenge", "marker-end": "url(#arrow)"}));
      }
      if (a >= SP.JABBA_TO && a < SP.FORCE_ON_JABBA) {  // a drawn Jabba card sends him (S8)
        const [x1, y1] = at(state.jabba), [x2, y2] = at(b.greys[a - SP.JABBA_TO]);
        out.push(svgEl("line", {x1, y1, x2, y2, class: "path jabba-move", "marker-end": "url(#arrow)"}));
      }
      if (a >= SP.TARGET && a < SP.CHALLENGE) {
        const [x1, y1] = at(from), [x2, y2] = at(state.positions[a - SP.TARGET]);
        out.push(svgEl("line", {x1, y1, x2, y2, class: "path swap", "marker-start": "url(#arrow)", "marker-end": "url(#arrow)"}));
      }
    }
    return out;
  }

  function shortestRoute(from, to) {
    const blocked = (s) => (posts.has(s) && !state.defeated.has(s)) || s === state.jabba;
    const back = new Map([[from, null]]);
    const queue = [from];
    while (queue.length) {
      const s = queue.shift();
      if (s === to) break;
      for (const t of b.neighbours[s]) {
        if (!back.has(t) && (t === to || !blocked(t))) { back.set(t, s); queue.push(t); }
      }
    }
    if (!back.has(to)) return [from, to];
    const route = [];
    for (let s = to; s !== null; s = back.get(s)) route.unshift(s);
    return route;
  }

  function renderCards() {
    for (const key of ["hand", "discard"]) {
      $(`[data-field=${key}]`).classList.toggle("active", state.active === key);
      fill($(`#${key}`), state[key].length ? state[key].map((c, i) => el("button", {type: "button", class: "chip",
        onclick: () => { state[key].splice(i, 1); renderCards(); }}, game.card_titles[game.cards.indexOf(c)])) : el("span", {class: "empty"}, "none"));
    }
    fill($("#cards"), game.cards.map((c, i) => el("button", {type: "button", class: "card", "data-card": c,
      onclick: () => addCard(c)}, game.card_titles[i])));
  }
  function addCard(c) {
    if (state.active === "hand" && c === "jabba") {
      showError("a Jabba card never stays in a hand (S8): it goes face up on the discard pile"); return;
    }
    if (state.active === "hand" && state.hand.length >= game.hand_size) {
      showError(`a hand holds at most ${game.hand_size} cards; click one to take it out`); return;
    }
    hideError();
    state[state.active].push(c);
    renderCards();
  }
  $("#to-hand").addEventListener("click", () => { state.active = "hand"; renderCards(); });
  $("#to-discard").addEventListener("click", () => { state.active = "discard"; renderCards(); });

  function situation() {
    return {game: game.game, players: players(), seat: seat(),
      positions: state.positions.map((p) => p === DETENTION ? "detention" : b.names[p]),
      jabba: b.names[state.jabba], defeated: [...state.defeated].sort((x, y) => x - y).map((s) => b.names[s]),
      points: [...document.querySelectorAll("[data-points]")].map((i) => Number(i.value || 0)),
      hand: [...state.hand], discard: [...state.discard], decision: $("#decision").value};
  }
  async function ask() {
    const query = new URLSearchParams({seed: $("#seed").value || "0"});
    if ($("#rollouts").value) query.set("rollouts", $("#rollouts").value);
    await askHint(query, situation(), show, showError);
  }

  function show(a) {
    $("#answer").hidden = false; $("#result").hidden = false;
    const s = a.situation;
    $("#summary").textContent = `${s.players} players, you are seat ${s.seat}: hand ${s.hand.join(", ")}; ` +
      `heroes ${s.positions.map((p, q) => `p${q} ${p}`).join(", ")}; Jabba ${s.jabba}; guards left ${s.guards_left.length}; ` +
      `points ${s.points.join("-")}; draw pile ${s.deck}${s.blocked ? "; blocked by Jabba (S9)" : ""}`;
    $("#recommendation").textContent = `Recommended: ${a.recommendation.action}`;
    const from = s.positions[s.seat] === "detention" ? DETENTION : space(s.positions[s.seat]);
    const drawPath = (ids) => { state.drawn = {ids, from}; draw(); };
    fill($("#plays thead"), el("tr", {}, el("th", {}, "full action (card, then where)"), el("th", {}, "table"),
      el("th", {}, "EV"), el("th", {class: "vs"}, "vs best")));
    const byEv = [...a.full_actions].sort((x, y) => y.ev - x.ev);
    const probability = Object.fromEntries(a.plays.map((p) => [p.action, p.probability]));
    fill($("#plays tbody"), byEv.map((p) => el("tr", {class: `option${p.action === a.recommendation.action ? " best" : ""}`,
      "data-action": p.action, onclick: () => drawPath(p.action_ids)},
    el("td", {}, p.action),
    el("td", {class: "num"}, probability[p.action.split(", ")[0]] == null ? "-" : pct(probability[p.action.split(", ")[0]])),
    el("td", {class: "num"}, `${signed(p.ev)} ± ${p.ev_ci95.toFixed(3)}`),
    el("td", {class: "num vs"}, `${signed(p.vs_best)} ± ${p.vs_best_ci95.toFixed(3)}`))));
    fill($("#steps"), el("p", {class: "small"}, "Each card's best line: ", a.plays.map((p) => `${p.full_action} ${signed(p.ev, 2)}`).join("; "),
      ". Click a row to draw its move."));
    $("#opponents-title").textContent = "What the others hold (chance of one or more)";
    fill($("#opponents"), a.opponents.map((o) => el("div", {class: "opponent"},
      el("h4", {}, `p${o.seat} (${o.position}, ${o.points} points, ${o.hand_size} cards)`),
      o.hand.slice(0, 8).map((c) => el("div", {class: "bar"},
        el("span", {class: "fill", style: `width:${(100 * c.probability).toFixed(1)}%`}),
        el("span", {class: "label"}, `${c.card}: ${pct(c.probability)}`))))));
    const r = a.rollouts, post = a.posterior;
    $("#source").textContent = `policy: ${a.policy.detail}; posterior: ${post.basis}, ${post.worlds} worlds; ` +
      `values from ${r.count.toLocaleString()} rollouts per full action; ${a.seconds.toFixed(2)} s`;
    const best = a.full_actions.find((p) => p.action === a.recommendation.action);
    drawPath(best ? best.action_ids : []);
  }

  $("#ask").addEventListener("click", ask);
  $("#clear").addEventListener("click", () => {
    Object.assign(state, {positions: state.positions.map(() => DETENTION), jabba: b.jabba_start,
      defeated: new Set(), hand: [], discard: [], active: "hand", drawn: null});
    document.querySelectorAll("[data-points]").forEach((i) => { i.value = "0"; });
    $("#answer").hidden = true; draw();
  });
  // The example situation (the warm-up's): the page starts with it filled in.
  const ex = game.example;
  if (ex) {
    fillSelect($("#players"), game.players, ex.players || 2); seats();
    fillSelect($("#seat"), [...Array(players()).keys()], ex.seat || 0);
    state.positions = (ex.positions || []).map((p) => p === "detention" ? DETENTION : space(p));
    state.defeated = new Set((ex.defeated || []).map(space));
    if (ex.jabba) state.jabba = space(ex.jabba);
    state.hand = [...(ex.hand || [])]; state.discard = [...(ex.discard || [])];
    $("#decision").value = ex.decision || "play";
    document.querySelectorAll("[data-points]").forEach((i, q) => { i.value = String((ex.points || [])[q] || 0); });
  }
  draw();
}

const FORMS = {cards: cardsForm, events: eventsForm, board: boardForm};

// Play --------------------------------------------------------------------------------

function playPage(meta) {
  let game = null;
  fillSelect($("#players"), [2, 3, 4, 5, 6], 2);
  fillSelect($("#agenda"), meta.agendas, "exalted_one");
  fillSelect($("#against"), meta.opponents, "table");
  $("#opponent-iterations").value = meta.defaults.opponent_search_iterations;
  $("#coach-iterations").value = meta.defaults.coach_search_iterations;
  const seats = () => fillSelect($("#seat"), [...Array(Number($("#players").value)).keys()], 0);
  seats();
  $("#players").addEventListener("change", seats);

  function showError(message) { $("#error").hidden = !message; $("#error").textContent = message || ""; }

  async function start() {
    const body = {players: Number($("#players").value), agenda: $("#agenda").value,
      seat: Number($("#seat").value), against: $("#against").value, match: $("#match").checked,
      coach: $("#coach").checked, seed: Number($("#seed").value)};
    // Only the fields that apply (the server refuses the others, as the command line does).
    if (body.against === "search") body.opponent_search_iterations = Number($("#opponent-iterations").value);
    if (body.coach) {
      Object.assign(body, {coach_threshold: Number($("#threshold").value), coach_search: $("#coach-search").checked});
      if (body.coach_search) body.coach_search_iterations = Number($("#coach-iterations").value);
    }
    $("#start").disabled = true; $("#start").textContent = "Dealing...";
    try {
      const reply = await api("/api/play/new", {method: "POST", body});
      game = reply.id;
      showError(null);
      $("#new-game").hidden = true; $("#board").hidden = false;
      $("#verdict").hidden = true;
      show(reply);
    } catch (err) {
      showError(err.message);
    } finally {
      $("#start").disabled = false; $("#start").textContent = "Start";
    }
  }

  async function act(action) {
    for (const b of document.querySelectorAll("#legal button")) b.disabled = true;
    $("#menu-title").textContent = "...";
    try {
      show(await api(`/api/play/${game}/act`, {method: "POST", body: {action}}));
    } catch (err) {
      $("#menu-title").textContent = `Refused: ${err.message}`;
    }
  }

  function seatName(view, s) {
    return `p${s.seat}${s.you ? " (you)" : ""}${view.match ? ` · table seat ${s.table_seat}` : ""}`;
  }

  function show(reply) {
    const v = reply.view;
    window.lastView = v;
    $("#download").href = `/api/play/${game}/log`;
    const tokens = v.match ? ` · tokens ${v.totals.map((t, i) => `${i === v.table_seat ? "you" : `seat ${i}`} ${t}`).join(", ")} (goal ${v.goal})` : "";
    $("#title").textContent = `Round ${v.round} · ${v.players} players, ${v.agenda} · you are p${v.seat} · deck ${v.deck}${tokens}`;
    $("#face-up").textContent = v.face_up.length ? `Face-up: ${v.face_up.join(", ")}` : "";
    fill($("#seats"), ...v.seats.map((s) => el("div", {class: `seat ${s.status} ${s.you ? "you" : ""}`},
      el("b", {}, seatName(v, s)), ` ${s.status} · area: ${s.area.join(", ") || "-"}`,
      s.hand && !s.you ? ` · hand: ${s.hand.join(", ") || "-"}` : "")));
    $("#hand").textContent = `Your hand: ${v.hand.join(", ") || "-"}`;
    $("#resolving").textContent = v.resolving ? `Resolving your ${v.resolving}: ${v.phase}` : "";
    $("#menu").hidden = !v.waiting;
    $("#menu-title").textContent = "Your move";
    fill($("#legal"), ...v.legal.map((item) => el("button", {type: "button", "data-action": item.action,
      onclick: () => act(item.action)}, item.text)));
    fill($("#events"), ...v.events.map((line) => el("li", {}, line)));
    if (reply.verdict) showVerdict(reply.verdict);
    const over = $("#round-over");
    over.hidden = !v.round_over;
    $("#next").hidden = !(v.round_over && !v.match_over);
    if (v.round_over) {
      const r = v.result;
      const who = (t) => (t === v.table_seat ? "you" : `table seat ${t}`);
      fill(over, 
        el("h3", {}, `Round ${v.round} over (${r.end}): won by ${r.winners.map(who).join(", ") || "nobody"}`),
        el("ul", {}, v.seats.map((s) => el("li", {}, `${seatName(v, s)}: hand ${s.hand.join(", ") || "-"}; area ${s.area.join(", ") || "-"}; +${r.tokens[s.table_seat]} token${r.tokens[s.table_seat] === 1 ? "" : "s"}`))),
        r.set_aside ? el("p", {class: "small"}, `Set-aside card: ${r.set_aside}`) : null,
        v.match_over && v.match ? el("p", {class: "title"}, `Match over: won by ${r.match_winners.map(who).join(", ")}`) : null,
        v.match_over && reply.coach ? el("p", {class: "small"}, `Coach: ${reply.coach.coached} plays coached, ${reply.coach.flagged} flagged; total cost ${reply.coach.cost.toFixed(2)} tokens`) : null);
    }
  }

  function showVerdict(verdict) {
    const box = $("#verdict");
    box.hidden = false;
    if (!verdict.coached) {
      box.className = "verdict";
      fill(box, el("p", {class: "small"}, `Coach, on your last choice: ${verdict.decision} not coached (${verdict.why}).`));
      return;
    }
    const costly = verdict.flagged;
    const search = verdict.search;
    box.className = `verdict ${costly ? "costly" : "fine"}`;
    fill(box, 
      el("p", {}, el("b", {}, `Coach, on your last play: ${costly ? "costly" : "fine"}. `),
        costly ? `${verdict.chosen} is worth ${signed(verdict.chosen_ev)}; the best, ${verdict.best}, ${signed(verdict.best_ev)}: it cost ${verdict.cost.toFixed(3)} ± ${verdict.cost_ci95.toFixed(3)} tokens.`
          : `${verdict.chosen} (${signed(verdict.chosen_ev)}) is within ${verdict.threshold} of the best (${verdict.best}, ${signed(verdict.best_ev)}).`),
      el("p", {class: "small search-note"}, search.used
        ? `The search recommends ${verdict.recommendation} (${search.iterations} iterations; depth: ${search.depth}). The cost is by the rollout EVs (the table plays on).`
        : `Search not used: ${search.reason}.`),
      el("div", {class: "scroll"}, el("table", {},
        el("thead", {}, el("tr", {}, el("th", {}, "play"),
          search.used ? [el("th", {}, "search"), el("th", {}, "search EV")] : null,
          el("th", {class: search.used ? "beside" : ""}, "table"), el("th", {}, "EV"))),
        el("tbody", {}, verdict.plays.map((p) => el("tr", {class: p.play === verdict.chosen ? "chosen" : ""},
          el("td", {}, p.play),
          search.used ? [el("td", {class: "num"}, pct(p.search_probability)), el("td", {class: "num"}, signed(p.search_value))] : null,
          el("td", {class: `num ${search.used ? "beside" : ""}`}, p.probability === null ? "-" : pct(p.probability)),
          el("td", {class: "num"}, `${signed(p.ev)} ± ${p.ev_ci95.toFixed(3)}`)))))));
  }

  $("#start").addEventListener("click", start);
  $("#next").addEventListener("click", async () => {
    $("#verdict").hidden = true;
    try { show(await api(`/api/play/${game}/next`, {method: "POST"})); } catch (err) { $("#menu-title").textContent = err.message; }
  });
  $("#again").addEventListener("click", () => { $("#board").hidden = true; $("#new-game").hidden = false; });
}

// Start -------------------------------------------------------------------------------

(async () => {
  watchStatus();
  if (document.body.dataset.page === "advice") {
    const game = new URLSearchParams(window.location.search).get("game");
    try {
      advicePage(await api(game === null ? "/api/meta" : `/api/meta?game=${encodeURIComponent(game)}`));
    } catch (err) {  // an unknown game: the server's message names the games
      $("#setup").hidden = true;
      showError(err.message);
    }
  } else {
    playPage(await api("/api/meta"));
  }
  document.body.dataset.loaded = "yes";
})();

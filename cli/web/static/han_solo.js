// The Han Solo card game's advice form (han_solo.html): a situation set up by clicking
// (your hand, the pot, the round's moves as a log) and POST /api/hint's answer, the same
// as `jabba hint --game han_solo --json` (docs/han-solo.md "Hints").
"use strict";

function hanSoloPage(meta) {
  const hs = meta.han_solo;
  const state = {hand: [], log: [], pending: null, active: "hand"};
  const players = () => Number($("#players").value);
  const seat = () => Number($("#seat").value);
  const colour = (card) => card.split(" ")[0];  // green, red or blue (style.css)

  fillSelect($("#players"), [...Array(hs.max_players - 1).keys()].map((i) => i + 2), 2);
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
    if (state.hand.length >= 5) { showError("a hand holds at most 5 cards; click one to remove it"); return; }
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
    return {game: "han_solo", players: players(), seat: seat(), hand: [...state.hand],
      pot: [...document.querySelectorAll("[data-pot]")].map((s) => s.value), log: state.log.join("; ")};
  }
  function showError(message) { $("#answer").hidden = false; $("#error").hidden = false; $("#error").textContent = message; }

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
    fill($("#plays tbody"), a.plays.map((p) => el("tr", {class: p.full_action === a.recommendation.action ? "best" : ""},
      el("td", {}, p.action), el("td", {}, p.full_action.split(", ").slice(1).join(", ")),
      el("td", {class: "num"}, p.probability === null ? "-" : pct(p.probability)),
      el("td", {class: "num"}, `${signed(p.ev)} ± ${p.ev_ci95.toFixed(3)}`),
      el("td", {class: "num vs"}, `${signed(p.vs_best)} ± ${p.vs_best_ci95.toFixed(3)}`))));
    fill($("#steps"), a.plays.flatMap((p) => p.steps.map((step) => el("p", {class: "small"},
      `after "${p.action}": `, [...step.options].sort((x, y) => y.ev - x.ev)
        .map((o) => `${o.action} ${signed(o.ev, 2)}`).join(", ")))));
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

// The review of a finished game: each decision of one seat, marked good, inaccuracy or mistake on a
// timeline; the move played against the best one with the expected penalty of each, and the board
// at that moment. The server makes the review (POST /api/games/ID/review), once, in the background.
import { api, botBadge, h, sleep, t, tn } from "./util.js";
import { bullIcon, cardNode, ghostNode, sumHeads } from "./cards.js";
import { buildFrames } from "./history.js";

/** Expected bullheads given away below this count as a good move (above: an inaccuracy, and past
 * the server's threshold a mistake). */
const GOOD = 0.25;

export function grade(decision, threshold) {
  if (decision.mistake || decision.loss > threshold) return "mistake";
  return decision.loss > GOOD ? "inaccuracy" : "good";
}

/** Game `id` (a private table's with its `table` code), seat `seat` (null: choose one). */
export async function showReview(main, id, table = null, seat = null) {
  const key = table ? `table=${encodeURIComponent(table)}` : "";
  const heading = h("h1", {}, t("review.title"));
  const status = h("p.muted", { id: "review-status", role: "status" });
  main.append(heading, status);
  let data;
  try { data = await api(`/games/${id}/events${key ? `?${key}` : ""}`); } catch (e) { status.textContent = e.message; return null; }
  heading.textContent = t("review.titleOf", { variant: t(`variant.${data.variant}`) });
  if (seat == null || !(seat >= 0 && seat < data.seats.length)) {
    status.textContent = t("review.whichSeat");
    main.append(h("div.replay-controls", { id: "review-seats" }, data.seats.map((name, i) =>
      h("a.btn.small", { href: `#/review/${id}?${[key, `seat=${i}`].filter(Boolean).join("&")}`, dataset: { seat: i } },
        name, data.bots?.[i] ? " " : "", botBadge(data.bots?.[i])))));
    return null;
  }
  let stopped = false;
  status.textContent = t("review.making");
  let review = null;
  try {
    let answer = await api(`/games/${id}/review${key ? `?${key}` : ""}`, { method: "POST", body: { seat } });
    while (answer.status !== "done" && answer.status !== "failed" && !stopped) {
      status.textContent = answer.status === "queued" ? t("review.queued", { n: answer.position ?? 1 }) : t("review.making");
      await sleep(1500);
      answer = await api(`/games/${id}/review?seat=${seat}${key ? `&${key}` : ""}`);
    }
    if (answer.status === "failed") { status.textContent = t("review.failed"); return null; }
    review = answer.review;
  } catch (e) { status.textContent = e.message; return () => { stopped = true; }; }
  if (!review || stopped) return null;
  const frames = buildFrames(data);
  const threshold = review.mistake_threshold ?? 1;
  const decisions = review.decisions;
  const counts = { good: 0, inaccuracy: 0, mistake: 0 };
  for (const d of decisions) counts[grade(d, threshold)] += 1;
  status.textContent = t("review.summary", { name: review.name, good: counts.good, inaccuracy: counts.inaccuracy, mistake: counts.mistake });
  const detail = h("div.review-detail", { id: "review-detail", "aria-live": "polite" });
  const timeline = h("ol.timeline", { id: "review-timeline", "aria-label": t("review.timeline") });
  let at = Math.max(0, decisions.findIndex((d) => grade(d, threshold) === "mistake"));
  const buttons = decisions.map((d, i) => {
    const g = grade(d, threshold);
    const what = `${t("review.at", { d: d.deal, t: d.turn })}${d.kind === "row" ? ` (${t("review.rowChoice")})` : ""}: ${t(`review.${g}`)}`;
    return h("li", {}, h(`button.mark.${g}`, { type: "button", dataset: { grade: g, index: i }, "aria-label": what, title: what,
      onclick: () => { at = i; draw(); } }, d.kind === "row" ? "⇅" : String(d.turn)));
  });
  // each deal's decisions under its own label (the turns start again at 1 in every deal)
  const marks = [];
  decisions.forEach((d, i) => {
    if (i === 0 || decisions[i - 1].deal !== d.deal) marks.push(h("li.deal-label", { dataset: { deal: d.deal } }, t("table.deal", { d: d.deal })));
    marks.push(buttons[i]);
  });
  timeline.replaceChildren(...marks);
  const legend = h("p.legend", {}, ["good", "inaccuracy", "mistake"].map((g) => h(`span.mark-key.${g}`, {}, t(`review.${g}`))),
    h("span.mark-key.marks-meaning", { id: "review-marks-meaning" }, t("review.marksMeaning")));
  const prev = h("button.btn.small", { type: "button", id: "review-prev", onclick: () => { at = Math.max(0, at - 1); draw(); } }, "◀ ", t("review.prev"));
  const next = h("button.btn.small", { type: "button", id: "review-next", onclick: () => { at = Math.min(decisions.length - 1, at + 1); draw(); } }, t("review.next"), " ▶");
  const board = h("div.board.review-board", { id: "review-board" });
  const hand = h("div.review-hand", { id: "review-hand" });
  function frameFor(d) {
    const deal = d.deal - 1;
    const turn = d.turn - 1;
    let found = null;
    for (const f of frames) {
      if (f.final) continue;
      if (f.deal === deal && (f.start || f.turn < turn)) found = f;
    }
    return found;
  }
  function draw() {
    const d = decisions[at];
    if (!d) { detail.replaceChildren(h("p", {}, t("review.nothing"))); return; }
    const g = grade(d, threshold);
    for (const b of buttons) b.firstChild.classList.toggle("current", Number(b.firstChild.dataset.index) === at);
    buttons[at]?.firstChild.setAttribute("aria-current", "step");
    for (const b of buttons) if (b !== buttons[at]) b.firstChild.removeAttribute("aria-current");
    const show = (option) => (d.kind === "row" ? t("review.row", { n: option + 1 }) : String(option));
    const lines = [
      h("p.review-where", {}, h("strong", {}, t("review.at", { d: d.deal, t: d.turn })), " · ", h(`span.grade.${g}`, { id: "review-grade" }, t(`review.${g}`))),
      h("p", { id: "review-played" }, d.kind === "row" ? t("review.playedRow", { card: d.card, row: show(d.played) }) : t("review.played", { card: show(d.played) }),
        " — ", tn("review.expected", d.expected_played, { n: d.expected_played.toFixed(2) })),
    ];
    if (d.best !== d.played) {
      lines.push(h("p", { id: "review-best" }, d.kind === "row" ? t("review.bestRow", { row: show(d.best) }) : t("review.best", { card: show(d.best) }),
        " — ", tn("review.expected", d.expected_best, { n: d.expected_best.toFixed(2) }),
        " ", t("review.loss", { n: d.loss.toFixed(2) })));
    } else lines.push(h("p", { id: "review-best" }, t("review.wasBest")));
    detail.replaceChildren(...lines);
    const f = frameFor(d);
    board.replaceChildren(...(f ? f.rows : [[], [], [], []]).map((row, i) => {
      const cards = row.map((c) => cardNode(c));
      for (let k = row.length; k < 6; k++) cards.push(ghostNode(k === 5));
      const marks = d.kind === "row" ? (i === d.played ? ".played-row" : i === d.best ? ".best-row" : "") : "";
      return h("div.row" + marks, { dataset: { row: i } }, h("div.cards", {}, cards), h("div.rowsum", {}, bullIcon(), String(sumHeads(row))));
    }));
    const cards = f?.hands?.[review.seat] ?? [];
    hand.replaceChildren(h("strong", {}, t("review.hand")), ...cards.map((c) => cardNode(c, {
      extra: d.kind === "card" ? (c === d.played ? ".played-card" : c === d.best ? ".best-card" : "") : "" })));
    prev.disabled = at === 0;
    next.disabled = at === decisions.length - 1;
  }
  const replay = h("a.btn.small.ghost", { href: `#/history/${id}${key ? `?${key}` : ""}` }, t("table.replay"));
  main.append(h("div.review", { id: "review" }, legend, timeline, h("div.replay-controls", {}, prev, next, h("span", { style: "flex:1" }), replay),
    h("section.table-screen.review-screen", {}, detail, board, hand)));
  draw();
  return () => { stopped = true; };
}

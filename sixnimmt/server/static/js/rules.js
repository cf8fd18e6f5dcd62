// The rules of each variant, in the chosen language, and the Bot API's documentation (the texts are
// rendered to HTML by the server).
import { api, getConfig, h, lang, t } from "./util.js";

export async function showRules(main, variant) {
  const VARIANTS = (await getConfig()).variants; // all nine, the four classic ones first
  if (!VARIANTS.includes(variant)) variant = "standard";
  const tabs = h("nav.tabs", { "aria-label": t("rules.title") }, VARIANTS.map((v) =>
    h("a", { href: `#/rules/${v}`, "aria-current": v === variant ? "page" : null }, t(`variant.${v}`))));
  const body = h("article.rules.panel", { id: "rules-text", lang });
  main.append(h("h1", {}, t("rules.title")), tabs, body);
  try {
    const page = await api(`/rules/${lang}/${variant}`);
    // Safe: the server renders the project's own Markdown with raw HTML disabled.
    body.innerHTML = page.html;
  } catch (e) { body.textContent = t("error.generic", { msg: e.message }); }
}

/** The Bot API's documentation (docs/bot-api.md, in English), linked from My bots. */
export async function showBotApiDocs(main) {
  const body = h("article.rules.panel", { id: "docs-text", lang: "en", "aria-label": t("place.docsTitle") });
  main.append(body);
  try {
    // Safe: the server renders the project's own Markdown with raw HTML disabled.
    body.innerHTML = (await api("/docs/bot-api")).html;
    // the other documents it names live in the repository, not on this site: their names stay as text
    for (const link of body.querySelectorAll("a[href]:not([href^='http']):not([href^='#'])")) link.replaceWith(h("span", {}, link.textContent));
  } catch (e) { body.textContent = t("error.generic", { msg: e.message }); }
}

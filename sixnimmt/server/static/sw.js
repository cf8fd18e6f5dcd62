// The service worker of the installable app (served at /sw.js, so its scope is the whole site).
// It keeps a copy of the app shell (the page, its scripts, styles, string tables and icons) so the
// app opens without a network, and always asks the network first, so a deploy is seen at once.
// The API and the table sockets are never cached nor answered from a cache: a game's state only
// ever comes from the server.
const CACHE = "sixnimmt-shell-v1";
const SHELL = [
  "/",
  "/static/manifest.json",
  "/static/css/style.css",
  "/static/css/account.css",
  "/static/css/tournaments.css",
  "/static/i18n/en.json",
  "/static/i18n/de.json",
  "/static/i18n/es.json",
  "/static/i18n/fr.json",
  "/static/i18n/sv.json",
  "/static/icons/icon.svg",
  "/static/icons/icon-192.png",
  "/static/icons/icon-512.png",
  "/static/js/app.js",
  "/static/js/account.js",
  "/static/js/bots.js",
  "/static/js/challenges.js",
  "/static/js/cards.js",
  "/static/js/history.js",
  "/static/js/lobby.js",
  "/static/js/notify.js",
  "/static/js/moderation.js",
  "/static/js/review.js",
  "/static/js/rules.js",
  "/static/js/score.js",
  "/static/js/table.js",
  "/static/js/tournaments.js",
  "/static/js/tutorial.js",
  "/static/js/util.js",
  "/static/js/table/animation.js",
  "/static/js/table/chat.js",
  "/static/js/table/dialogs.js",
  "/static/js/table/drawing.js",
  "/static/js/table/finding.js",
  "/static/js/table/log.js",
  "/static/js/table/plays.js",
  "/static/js/table/results.js",
  "/static/js/table/seats.js",
  "/static/js/table/signals.js",
  "/static/js/table/socket.js",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys().then((names) => Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n)))));
});

/** Whether the worker answers `request`: a GET of this site's shell, never the API nor a socket. */
function isShell(request) {
  if (request.method !== "GET") return false;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return false;
  return url.pathname === "/" || url.pathname.startsWith("/static/");
}

self.addEventListener("fetch", (event) => {
  if (!isShell(event.request)) return; // the browser fetches it as if there were no worker
  event.respondWith((async () => {
    try {
      const response = await fetch(event.request);
      if (response.ok) {
        const copy = response.clone();
        event.waitUntil(caches.open(CACHE).then((cache) => cache.put(event.request, copy)));
      }
      return response;
    } catch (error) {
      // Offline: the page's own address (with any #route) is the shell's "/".
      const cached = await caches.match(event.request, { ignoreSearch: new URL(event.request.url).pathname === "/" });
      if (cached) return cached;
      throw error;
    }
  })());
});

// Web Push (js/notify.js subscribes): a move due at a turn-based table, or a challenge, shown as a
// notification even with every tab of the site closed; a click opens the table (in a tab of the
// site already open, if there is one).
self.addEventListener("push", (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch { /* not ours: shown plainly */ }
  const url = typeof data.url === "string" && data.url.startsWith("/") ? data.url : "/";
  event.waitUntil(self.registration.showNotification(data.title || "6 nimmt!", {
    body: data.body || "", icon: "/static/icons/icon-192.png", tag: data.table || "sixnimmt", data: { url },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url || "/", self.location.origin).href;
  event.waitUntil((async () => {
    for (const client of await self.clients.matchAll({ type: "window" })) {
      if (new URL(client.url).origin !== self.location.origin) continue;
      try {
        await client.focus();
        return await client.navigate(url);
      } catch { break; } // (a tab the worker may not steer: a new one instead)
    }
    return self.clients.openWindow(url);
  })());
});

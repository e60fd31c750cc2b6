// Rankscope's service worker: keeps the app's own files so the page works
// offline once it has been opened. Network first (a new deployment is picked up
// at once), the cached copy when the network is not there. Only the app's files
// are cached (index.html and the files it names, the loading worker); data the
// user loads from URLs never is.
const CACHE = 'rankscope-app';
const WORKER_FILES = ['rankscope-worker_loader.js', 'rankscope-worker.js', 'rankscope-worker_bg.wasm'];

async function appFiles() {
  const index = await fetch('./index.html', { cache: 'no-cache' });
  const html = await index.clone().text();
  const named = [...html.matchAll(/(?:href|src)="\.\/([^"#?]+)"/g)].map((m) => m[1]);
  return { index, files: ['./', ...[...new Set([...named, ...WORKER_FILES])].map((f) => `./${f}`)] };
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const { index, files } = await appFiles();
    await cache.put('./index.html', index);
    await cache.addAll(files.filter((f) => f !== './index.html'));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

function isAppFile(url) {
  const scope = new URL(self.registration.scope);
  if (url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return false;
  const rel = url.pathname.slice(scope.pathname.length);
  return rel === '' || rel === 'index.html' || rel === 'sw.js'
    || /^(main|rankscope-web)-[0-9a-f]+(_bg)?\.(css|js|wasm)$/.test(rel) || WORKER_FILES.includes(rel);
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || !(request.mode === 'navigate' && url.origin === self.location.origin || isAppFile(url))) return;
  const key = request.mode === 'navigate' ? './index.html' : request;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const response = await fetch(request);
      if (response.ok) await cache.put(key, response.clone());
      return response;
    } catch (offline) {
      const cached = await cache.match(key, { ignoreSearch: request.mode === 'navigate' });
      if (cached) return cached;
      throw offline;
    }
  })());
});

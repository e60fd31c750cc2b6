// Rankscope's service worker: keeps the app's own files so the page works
// offline once it has been opened. Network first (a new deployment is picked up
// at once), the cached copy when the network is not there. Only the app's files
// are cached (each page's index.html and the files it names: the dashboard, its
// loading worker, the teaching page in learn/, the leaderboard in board/); data the user loads from URLs
// never is.
const CACHE = 'rankscope-app';
const WORKER_FILES = ['rankscope-worker_loader.js', 'rankscope-worker.js', 'rankscope-worker_bg.wasm'];
// the bundled example parsed ahead: kept when the build wrote it (without it the worker makes the example)
const EXAMPLE = 'example.bin';

// The files a page names (its index.html fetched fresh), relative to the scope.
async function pageFiles(dir) {
  const index = await fetch(`./${dir}index.html`, { cache: 'no-cache' });
  const html = await index.clone().text();
  const named = [...html.matchAll(/(?:href|src)="\.\/([^"#?]+)"/g)].map((m) => `./${dir}${m[1]}`);
  return { index, files: [`./${dir}`, ...named] };
}

async function appFiles() {
  const main = await pageFiles('');
  const learn = await pageFiles('learn/');
  const board = await pageFiles('board/');
  return {
    indexes: [['./index.html', main.index], ['./learn/index.html', learn.index], ['./board/index.html', board.index]],
    files: [...new Set([...main.files, ...WORKER_FILES.map((f) => `./${f}`), ...learn.files, ...board.files])],
  };
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const { indexes, files } = await appFiles();
    for (const [key, response] of indexes) if (response.ok) await cache.put(key, response);
    await cache.addAll(files.filter((f) => !f.endsWith('index.html')));
    await cache.add(`./${EXAMPLE}`).catch(() => {});
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

function isAppFile(url) {
  const scope = new URL(self.registration.scope);
  if (url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return false;
  const rel = url.pathname.slice(scope.pathname.length);
  return /^((learn|board)\/)?(index\.html)?$/.test(rel) || rel === 'sw.js' || rel === EXAMPLE
    || /^(main|rankscope-web)-[0-9a-f]+(_bg)?\.(css|js|wasm)$/.test(rel) || WORKER_FILES.includes(rel)
    || /^learn\/(main|rankscope-learn)-[0-9a-f]+(_bg)?\.(css|js|wasm)$/.test(rel)
    || /^board\/(main|rankscope-board)-[0-9a-f]+(_bg)?\.(css|js|wasm)$/.test(rel);
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || !(request.mode === 'navigate' && url.origin === self.location.origin || isAppFile(url))) return;
  // a navigation is answered by its page's index.html (the dashboard, the teaching page, the leaderboard)
  const scope = new URL(self.registration.scope).pathname;
  const sub = ['learn/', 'board/'].find((d) => url.pathname.startsWith(`${scope}${d}`));
  const page = sub ? `./${sub}index.html` : './index.html';
  const key = request.mode === 'navigate' ? page : request;
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

// Static assets of the sign-in pages: the stylesheet and script, and the @simplewebauthn/browser UMD bundle, read
// once at start and served at /assets/{name} by every host that lists `assetEndpoint()` in its table.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type Endpoint, pageEndpoint, statusOf } from '@svc/platform';

/** The library's assets folder (`pnpm build` copies it beside each host's built `main.js`). */
export const ASSETS_DIR = path.resolve(__dirname, '../../assets');

/** assets/ beside the built `main.js`, else the library's source folder. */
function assetPath(name: string): string {
  const shipped = path.join(__dirname, 'assets', name);
  return existsSync(shipped) ? shipped : path.join(ASSETS_DIR, name);
}

export function browserBundlePath(): string {
  const shipped = path.join(__dirname, 'assets', 'simplewebauthn-browser.js');
  if (existsSync(shipped)) return shipped;
  // The package's exports map hides dist/; resolve its entry and walk up to the package root.
  let dir = path.dirname(require.resolve('@simplewebauthn/browser'));
  while (!dir.endsWith(`${path.sep}browser`) && dir !== path.dirname(dir)) dir = path.dirname(dir);
  return path.join(dir, 'dist', 'bundle', 'index.umd.min.js');
}

/** GET /assets/{name}: the sign-in pages' stylesheet, script and WebAuthn bundle, read once at start. */
export function assetEndpoint(): Endpoint {
  const assets: Record<string, { type: string; body: Buffer }> = {
    'signin.css': {
      type: 'text/css; charset=utf-8',
      body: readFileSync(assetPath('signin.css')),
    },
    'signin.js': {
      type: 'text/javascript; charset=utf-8',
      body: readFileSync(assetPath('signin.js')),
    },
    'simplewebauthn-browser.js': {
      type: 'text/javascript; charset=utf-8',
      body: readFileSync(browserBundlePath()),
    },
  };
  return pageEndpoint({
    method: 'GET',
    path: '/assets/:name',
    body: { kind: 'none' },
    noStore: false,
    doc: {
      summary: "The sign-in pages' stylesheet and scripts.",
      answers: [
        {
          media: ['text/css', 'text/javascript'],
          headers: { 'Cache-Control': 'public, max-age=3600', 'Cross-Origin-Resource-Policy': 'same-origin' },
        },
      ],
      errorPages: [],
    },
    page: (req, res) => {
      // Own members only: `constructor`, `__proto__` or `toString` name no asset (an inherited one answered 500).
      const name = String(req.params.name);
      const asset = Object.hasOwn(assets, name) ? assets[name] : undefined;
      if (!asset) return void res.status(statusOf('NotFound')).json({ reason: 'NotFound' });
      res.setHeader('Content-Type', asset.type);
      res.setHeader('Cache-Control', 'public, max-age=3600');
      res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
      res.send(asset.body);
    },
  });
}

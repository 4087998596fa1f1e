import type { NestExpressApplication } from '@nestjs/platform-express';
import express from 'express';
import { existsSync, readdirSync } from 'fs';
import { join } from 'path';

/** Content-hashed bundle files: the build names them offers-widget.<hash>.js. */
const HASHED = /^offers-widget\.[0-9a-f]{8,}\.js$/;
const ENTRY = 'offers-widget.js';
/** The stable entry changes with each release: browsers may keep it for five minutes. */
const ENTRY_MAX_AGE_SECONDS = 300;

/**
 * Serves the widget bundle (dist/widget, built by `npm run build`) under /widget/v1/. It is
 * public static code, the only thing here served to every origin: `Access-Control-Allow-Origin:
 * *` (a module script from another origin is fetched with CORS) and `Cross-Origin-Resource-Policy:
 * cross-origin` (helmet's same-origin default would block it under COEP). The stable
 * `offers-widget.js` is a one-line module importing `offers-widget.<hash>.js`, which never
 * changes and is cached for a year.
 */
export function serveWidgetBundle(app: NestExpressApplication): void {
  const dir = [
    join(process.cwd(), 'dist', 'widget'),
    join(__dirname, '..', 'widget'),
    join(__dirname, '..', '..', '..', '..', 'dist', 'widget'),
  ].find((d) => existsSync(join(d, ENTRY)));
  const http = app.getHttpAdapter().getInstance() as express.Express;
  const files = dir ? new Set(readdirSync(dir).filter((f) => f === ENTRY || HASHED.test(f))) : null;
  http.get(/^\/widget\/v1\/(offers-widget(?:\.[0-9a-f]{8,})?\.js)$/, (req, res, next) => {
    const name = (req.params as Record<string, string>)[0];
    if (!dir || !files?.has(name)) return next();
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader(
      'Cache-Control',
      name === ENTRY
        ? `public, max-age=${ENTRY_MAX_AGE_SECONDS}`
        : 'public, max-age=31536000, immutable',
    );
    res.sendFile(join(dir, name), {
      headers: { 'Content-Type': 'text/javascript; charset=utf-8' },
      cacheControl: false,
    });
  });
}

#!/usr/bin/env node
// The npm registry mirror this project is built on lacks some other platforms' optional native
// binaries (e.g. @unrs/resolver-binding-darwin-arm64), so `npm install` leaves them out of
// package-lock.json and `npm ci` then refuses the lock as out of sync. This adds the missing
// optional entries with their os/cpu, so `npm ci` skips them here and installs them by name on
// the platforms that need them. Run it after `npm install` changes the lock.
const { readFileSync, writeFileSync } = require('fs');
const { join } = require('path');

const file = join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(file, 'utf8'));
const pkgs = lock.packages;
const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony'];
let added = 0;

for (const [path, meta] of Object.entries(pkgs)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (pkgs[key] || pkgs[`${path}/${key}`]) continue;
    const parts = name.split('/').pop().split('-');
    const os = parts.find((p) => OS.includes(p));
    const cpu = os ? parts[parts.indexOf(os) + 1] : undefined;
    if (!os || !cpu) continue; // not a platform binary: leave it to npm
    pkgs[key] = {
      version,
      ...(meta.dev ? { dev: true } : {}),
      optional: true,
      os: [os],
      cpu: [cpu === 'arm' ? 'arm' : cpu],
    };
    added++;
  }
}
const sorted = Object.fromEntries(
  Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: added ${added} optional platform entries`);

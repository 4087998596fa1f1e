#!/usr/bin/env node
// Link check over README, CONTRIBUTING, CHANGELOG and docs/ (part of `npm test`), without the
// network: every relative link must name a file inside the repository, and every #anchor a
// heading of its target page (GitHub's heading slugs). Links to other sites are not fetched.
// Prints each broken link as file:line and exits 1 when there is one.
const { existsSync, readFileSync, readdirSync, statSync } = require('fs');
const { dirname, join, relative, resolve, sep } = require('path');

const root = resolve(__dirname, '..');

function markdownFiles() {
  const files = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md'].map((f) => join(root, f));
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) files.push(p);
    }
  };
  walk(join(root, 'docs'));
  return files.filter((f) => existsSync(f));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[`*_~[\]()]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

/** The page's text outside fenced code blocks and inline code, line numbers kept. */
function prose(text) {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, '');
  });
}

const anchorsCache = new Map();
function anchors(file) {
  if (!anchorsCache.has(file)) {
    const seen = new Map();
    const set = new Set();
    for (const line of prose(readFileSync(file, 'utf8'))) {
      const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
      if (!m) continue;
      const base = slug(m[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      set.add(n ? `${base}-${n}` : base);
    }
    for (const m of readFileSync(file, 'utf8').matchAll(/<a (?:name|id)="([^"]+)"/g)) set.add(m[1]);
    anchorsCache.set(file, set);
  }
  return anchorsCache.get(file);
}

const problems = [];
let checked = 0;
for (const file of markdownFiles()) {
  const lines = prose(readFileSync(file, 'utf8'));
  lines.forEach((line, i) => {
    // [text](target "title") and ![alt](target); reference definitions [x]: target
    const targets = [
      ...[...line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
        (m) => m[1],
      ),
      ...[...line.matchAll(/^\s*\[[^\]]+\]:\s+(\S+)/g)].map((m) => m[1]),
    ];
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: … : not fetched
      checked++;
      const where = `${relative(root, file)}:${i + 1}`;
      const [pathPart, anchor] = target.split('#');
      const path = pathPart ? resolve(dirname(file), decodeURIComponent(pathPart)) : file;
      if (path !== root && !path.startsWith(root + sep)) {
        problems.push(`${where}: ${target} leaves the repository`);
        continue;
      }
      if (!existsSync(path)) {
        problems.push(`${where}: ${target} does not exist`);
        continue;
      }
      if (anchor && statSync(path).isFile() && path.endsWith('.md') && !anchors(path).has(anchor)) {
        problems.push(`${where}: ${target}: no heading #${anchor} in ${relative(root, path)}`);
      }
    }
  });
}

for (const p of problems) process.stdout.write(`${p}\n`);
process.stdout.write(
  `links: ${checked} checked in ${markdownFiles().length} files, ${problems.length} broken\n`,
);
process.exit(problems.length ? 1 : 0);

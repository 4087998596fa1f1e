#!/usr/bin/env node
// `npm run gen:client` (and the portal's `npm run gen:api -w portal`): everything generated from
// openapi/openapi.json, kept in the repository so it can be read and reviewed:
//   clients/typescript/src/schema.ts  the types of the typed TypeScript client and of the portal
//                                     (openapi-typescript)
//   clients/bruno/                    a Bruno collection: one request per public and admin operation
// `--check` writes nothing and exits 1 naming each file that differs (a test runs it, so a changed
// contract without regenerated clients fails).
const { spawnSync } = require('child_process');
const { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } = require('fs');
const { dirname, join, relative } = require('path');

const root = join(__dirname, '..');
const check = process.argv.includes('--check');
const doc = JSON.parse(readFileSync(join(root, 'openapi', 'openapi.json'), 'utf8'));

/** openapi-typescript (the portal's dev dependency: it needs TypeScript 5, the root has 6). */
function typescriptSchema() {
  const pkg = require.resolve('openapi-typescript/package.json', { paths: [join(root, 'portal')] });
  const bin = join(dirname(pkg), 'bin', 'cli.js');
  const r = spawnSync(process.execPath, [bin, join(root, 'openapi', 'openapi.json')], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`openapi-typescript failed: ${r.stderr}`);
  return r.stdout;
}

const BRUNO_AREAS = [
  { prefix: '/api/v1/', token: '{{apiKey}}' },
  { prefix: '/admin/api/v1/', token: '{{operatorToken}}' },
];

function exampleOf(schema) {
  if (!schema) return undefined;
  if (schema.$ref) return exampleOf(resolveRef(schema.$ref));
  if (schema.example !== undefined) return schema.example;
  if (schema.oneOf) return exampleOf(schema.oneOf[0]);
  if (schema.type === 'object' || schema.properties) {
    const out = {};
    for (const name of schema.required ?? []) {
      const v = exampleOf(schema.properties?.[name]);
      if (v !== undefined) out[name] = v;
    }
    return out;
  }
  if (schema.type === 'array') return [exampleOf(schema.items)].filter((v) => v !== undefined);
  return schema.default;
}

function resolveRef(ref) {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((o, k) => o[k], doc);
}

function requestBodyExample(op) {
  const content = op.requestBody?.content?.['application/json'];
  if (!content) return undefined;
  const named = content.examples && Object.values(content.examples)[0];
  return named?.value ?? content.example ?? exampleOf(content.schema);
}

/** One .bru file per operation: method, URL, bearer auth, parameters, a JSON body example. */
function bruFile(path, method, op, token, seq) {
  const params = (op.parameters ?? []).map((p) => (p.$ref ? resolveRef(p.$ref) : p));
  const value = (p) => String(p.example ?? p.schema?.example ?? p.schema?.default ?? '');
  const query = params.filter((p) => p.in === 'query');
  const pathParams = params.filter((p) => p.in === 'path');
  const url = path.replace(/\{([^}]+)\}/g, ':$1');
  const queryString = query
    .filter((p) => p.required)
    .map((p) => `${p.name}=${encodeURIComponent(value(p))}`)
    .join('&');
  const body = requestBodyExample(op);
  const blocks = [
    `meta {\n  name: ${op.summary ?? op.operationId}\n  type: http\n  seq: ${seq}\n}`,
    `${method} {\n  url: {{baseUrl}}${url}${queryString ? `?${queryString}` : ''}\n  body: ${
      body === undefined ? 'none' : 'json'
    }\n  auth: bearer\n}`,
  ];
  if (query.length)
    blocks.push(
      `params:query {\n${query
        .map((p) => `  ${p.required ? '' : '~'}${p.name}: ${value(p)}`)
        .join('\n')}\n}`,
    );
  if (pathParams.length)
    blocks.push(
      `params:path {\n${pathParams.map((p) => `  ${p.name}: ${value(p)}`).join('\n')}\n}`,
    );
  blocks.push(`auth:bearer {\n  token: ${token}\n}`);
  if (body !== undefined) {
    const json = JSON.stringify(body, null, 2)
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n');
    blocks.push(`body:json {\n${json}\n}`);
  }
  if (op.description) blocks.push(`docs {\n${indent(op.description)}\n}`);
  return `${blocks.join('\n\n')}\n`;
}

const indent = (text) =>
  text
    .split('\n')
    .map((l) => (l ? `  ${l}` : ''))
    .join('\n');

function brunoCollection() {
  const files = new Map();
  files.set(
    'bruno.json',
    `${JSON.stringify({ version: '1', name: doc.info.title, type: 'collection', ignore: [] }, null, 2)}\n`,
  );
  files.set(
    'environments/local.bru',
    'vars {\n  baseUrl: http://localhost:3000\n}\nvars:secret [\n  apiKey,\n  operatorToken\n]\n',
  );
  const seqs = new Map();
  for (const [path, methods] of Object.entries(doc.paths)) {
    const area = BRUNO_AREAS.find((a) => path.startsWith(a.prefix));
    if (!area) continue;
    for (const [method, op] of Object.entries(methods)) {
      if (!op.operationId) continue;
      const folder = (op.tags?.[0] ?? 'Other').replace(/[^A-Za-z0-9 -]/g, '');
      const seq = (seqs.get(folder) ?? 0) + 1;
      seqs.set(folder, seq);
      files.set(`${folder}/${op.operationId}.bru`, bruFile(path, method, op, area.token, seq));
    }
  }
  return files;
}

function listFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)],
  );
}

const wanted = new Map([[join(root, 'clients/typescript/src/schema.ts'), typescriptSchema()]]);
const brunoDir = join(root, 'clients', 'bruno');
for (const [name, text] of brunoCollection()) wanted.set(join(brunoDir, name), text);

const stale = [...wanted]
  .filter(([file, text]) => !existsSync(file) || readFileSync(file, 'utf8') !== text)
  .map(([file]) => file);
const extra = listFiles(brunoDir).filter((f) => !wanted.has(f));

if (check) {
  for (const f of [...stale, ...extra]) process.stdout.write(`stale: ${relative(root, f)}\n`);
  if (stale.length || extra.length) {
    process.stdout.write(
      'generated clients differ from openapi/openapi.json: npm run gen:client\n',
    );
    process.exit(1);
  }
  process.stdout.write(`generated clients match openapi/openapi.json (${wanted.size} files)\n`);
} else {
  for (const f of extra) rmSync(f);
  for (const f of stale) {
    mkdirSync(dirname(f), { recursive: true });
    writeFileSync(f, wanted.get(f));
  }
  process.stdout.write(`wrote ${stale.length} of ${wanted.size} generated files\n`);
}

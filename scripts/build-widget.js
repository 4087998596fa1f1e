#!/usr/bin/env node
// Builds the embeddable widget (widget/src) into dist/widget with Vite (already in the tree for
// the portal), always as a production build whatever NODE_ENV says (Lit's development build is
// larger and warns in the console). Writes:
//   offers-widget.<hash>.js  the bundle, named by its content (served with a one-year cache)
//   offers-widget.js         the stable entry: one line re-exporting the hashed file
//   manifest.json            file name, SRI integrity, bytes and gzip bytes
// and fails when the gzip size passes the budget.
const { createHash } = require('crypto');
const { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('fs');
const { join } = require('path');
const { gzipSync } = require('zlib');

const BUDGET_GZIP_BYTES = 25 * 1024;
const root = join(__dirname, '..');
const out = join(root, 'dist', 'widget');

async function main() {
  process.env.NODE_ENV = 'production';
  const { build } = await import('vite');
  const tmp = join(root, 'dist', '.widget-build');
  await build({
    configFile: false,
    root: join(root, 'widget'),
    mode: 'production',
    logLevel: 'warn',
    publicDir: false,
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    build: {
      outDir: tmp,
      emptyOutDir: true,
      target: 'es2022',
      minify: true,
      sourcemap: false,
      modulePreload: false,
      copyPublicDir: false,
      rollupOptions: {
        input: join(root, 'widget', 'src', 'offers-widget.ts'),
        preserveEntrySignatures: 'exports-only',
        output: { format: 'es', entryFileNames: 'bundle.js' },
      },
    },
  });
  const code = readFileSync(join(tmp, 'bundle.js'));
  rmSync(tmp, { recursive: true, force: true });

  const hash = createHash('sha256').update(code).digest('hex').slice(0, 12);
  const file = `offers-widget.${hash}.js`;
  mkdirSync(out, { recursive: true });
  for (const f of readdirSync(out))
    if (/^offers-widget\.[0-9a-f]+\.js$/.test(f)) rmSync(join(out, f));
  writeFileSync(join(out, file), code);
  writeFileSync(join(out, 'offers-widget.js'), `export * from './${file}';\n`);
  const gzip = gzipSync(code, { level: 9 }).length;
  const manifest = {
    file,
    integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`,
    bytes: code.length,
    gzip_bytes: gzip,
    budget_gzip_bytes: BUDGET_GZIP_BYTES,
  };
  writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  process.stdout.write(
    `widget: dist/widget/${file} ${code.length} bytes, ${gzip} bytes gzip (budget ${BUDGET_GZIP_BYTES})\n`,
  );
  if (gzip > BUDGET_GZIP_BYTES) {
    process.stderr.write(`widget bundle over its gzip budget: ${gzip} > ${BUDGET_GZIP_BYTES}\n`);
    process.exit(1);
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exit(1);
});

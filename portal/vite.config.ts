import { defineConfig } from 'vite';

// Served by the api under /portal; in development (`npm run dev`, or `npm run dev -w portal`)
// Vite proxies the portal and admin APIs to the api on PORT (3000 by default).
const apiPort = process.env.PORT ?? '3000';

export default defineConfig({
  base: '/portal/',
  // The portal is written against React's API and runs on Preact's compat layer: React DOM alone
  // is about 210 kB of minified JS, Preact about 25 kB (docs/portal.md, "Bundle"). JSX is compiled
  // by Vite (automatic runtime) and its react/jsx-runtime import lands on Preact's too.
  resolve: {
    alias: [
      { find: /^react$/, replacement: 'preact/compat' },
      { find: /^react-dom$/, replacement: 'preact/compat' },
      { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
      { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
      { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-dev-runtime' },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // Read by scripts/portal-bundle-budget.js: which chunks the first page loads.
    manifest: true,
    rollupOptions: {
      // React Server Components' "use client" marks in @tanstack/react-query mean nothing here.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  // The console (/portal/console) calls the admin API, the widget preview loads the widget.
  server: {
    proxy: {
      '/portal/api': `http://localhost:${apiPort}`,
      '/admin/api': `http://localhost:${apiPort}`,
      '/widget/v1': `http://localhost:${apiPort}`,
    },
  },
});

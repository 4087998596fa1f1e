import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Served by the api under /portal; in development (`npm run dev`, or `npm run dev -w portal`)
// Vite proxies the portal API to the api on PORT (3000 by default).
const apiPort = process.env.PORT ?? '3000';

export default defineConfig({
  base: '/portal/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: { proxy: { '/portal/api': `http://localhost:${apiPort}` } },
});

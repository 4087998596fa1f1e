import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Served by the api under /portal; in development `npm run dev -w portal` proxies the api.
export default defineConfig({
  base: '/portal/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: { proxy: { '/portal/api': 'http://localhost:3000' } },
});

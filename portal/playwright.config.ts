import { defineConfig } from '@playwright/test';
import { join } from 'path';
import { fileURLToPath } from 'url';

// Browser tests of the portal: Debian's Chromium (never a downloaded browser) against the BUILT
// portal served by a real api, with a real worker, both started by test/global-setup.ts on their
// own database. `npm test` runs them through scripts/test.js; alone:
//   npx playwright test -c portal              (UPDATE_DOC_SCREENSHOTS=1 to refresh docs/screenshots)
const root = fileURLToPath(new URL('..', import.meta.url));

export default defineConfig({
  testDir: './test',
  testMatch: '*.spec.ts',
  globalSetup: './test/global-setup.ts',
  outputDir: join(root, 'test-output', 'playwright'),
  // One browser at a time: the machine running CI is small, and every test makes its own data.
  workers: 1,
  fullyParallel: true,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [['list'], ['json', { outputFile: join(root, 'test-output', 'portal-results.json') }]],
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-dev-shm-usage',
      ],
    },
    viewport: { width: 1360, height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
    actionTimeout: 15_000,
    screenshot: 'only-on-failure',
  },
});

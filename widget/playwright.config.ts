import { defineConfig } from '@playwright/test';
import { join } from 'path';

// Browser tests of the embeddable widget: Debian's Chromium (never a downloaded browser) on a host
// page served from ANOTHER origin than the api, under a strict CSP, against the BUILT bundle served
// by a real api that test/global-setup.ts starts on its own database and a free port. `npm test`
// runs them through scripts/test.js; alone:
//   npx playwright test -c widget              (UPDATE_DOC_SCREENSHOTS=1 to refresh docs/screenshots)
const root = join(__dirname, '..');

export default defineConfig({
  testDir: './test',
  testMatch: '*.spec.ts',
  globalSetup: './test/global-setup.ts',
  outputDir: join(root, 'test-output', 'playwright-widget'),
  // One browser at a time, in file order: the funnel tests count exact deltas of one institution.
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list'], ['json', { outputFile: join(root, 'test-output', 'widget-results.json') }]],
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    },
    viewport: { width: 1000, height: 900 },
    actionTimeout: 15_000,
    screenshot: 'only-on-failure',
  },
});

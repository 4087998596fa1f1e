// What the operator console's browser tests share: named operators made with the break-glass
// token, signing in and out, the console's navigation, and each page's checks (axe's serious
// findings, no sideways scrolling at 390 px, screenshots at desktop and phone width).
import { expect, type Page } from '@playwright/test';
import { randomBytes } from 'crypto';
import { readFileSync } from 'fs';
import { totpCode } from '../../libs/domain/src/second-factor';
import { call, must, shot } from './fixtures';

export const PASSWORD = 'a long operator passphrase';
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface Operator {
  id: string;
  email: string;
  password: string;
  role: string;
}

const breakGlass = (method: string, path: string, body?: unknown) =>
  call(method, `/admin/api/v1${path}`, { token: process.env.PORTAL_TEST_OPERATOR_TOKEN, body });

export async function makeOperator(
  role: string,
  name = `${role} ${randomBytes(2).toString('hex')}`,
) {
  const email = `${role}-${randomBytes(4).toString('hex')}@ops.example`;
  const op = await must(
    breakGlass('POST', '/operators', { email, name, password: PASSWORD, role }),
    201,
    `${role} operator`,
  );
  return { id: op.id as string, email, password: PASSWORD, role } satisfies Operator;
}

export async function signIn(page: Page, op: Operator, totpSecret?: string) {
  await page.goto('/portal/console/');
  await page.getByLabel('E-mail').fill(op.email);
  await page.getByLabel('Password').fill(op.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  if (totpSecret) {
    await page.getByRole('heading', { name: 'Second factor' }).waitFor();
    // The next step's code: the current one may have been spent by the enrolment (each works once).
    await page.getByLabel('Authentication code').fill(totpCode(totpSecret, Date.now() + 30_000));
    await page.getByRole('button', { name: 'Verify' }).click();
  }
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

export async function signOut(page: Page) {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
}

export const go = (page: Page, label: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click();

/** axe-core's serious and critical findings on the page. */
export async function axeSerious(page: Page) {
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return (r.violations as { id: string; impact: string; nodes: { target: string[] }[] }[]).map(
      (v) => ({
        id: v.id,
        impact: v.impact,
        where: v.nodes.slice(0, 3).map((n) => n.target.join(' ')),
      }),
    );
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export async function noSidewaysScroll(page: Page, what: string) {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(scroll, `${what}: no sideways scrolling at 390 px`).toBeLessThanOrEqual(client);
}

/** The page checked by axe, then shot at desktop width, then at 390 px (shot and scroll checked). */
export async function checkPage(page: Page, name: string, ready: () => Promise<unknown>) {
  await ready();
  expect(await axeSerious(page), `${name}: axe serious findings`).toEqual([]);
  await shot(page, `console-${name}`);
  await page.setViewportSize({ width: 390, height: 844 });
  await ready();
  await noSidewaysScroll(page, name);
  await shot(page, `console-${name}-phone`);
  await page.setViewportSize({ width: 1360, height: 900 });
}

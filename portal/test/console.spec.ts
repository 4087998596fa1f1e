// The operator console (/portal/console, docs/operators.md "The console"): a named operator
// signs in with a password, turns on a second factor and signs in with it, then onboards an
// institution in the wizard (institution, program, first staff user, first key) and suspends it.
import { expect } from '@playwright/test';
import { randomBytes } from 'crypto';
import { totpCode } from '../../libs/domain/src/second-factor';
import { axeSerious, checkPage, go, makeOperator, signOut } from './console-fixtures';
import { call, must, portalSession, shot, test } from './fixtures';

test('console: sign-in with a second factor, and the onboarding wizard', async ({ page }) => {
  const admin = await makeOperator('admin', 'Ana Admin');
  await page.goto('/portal/console/');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  expect(await axeSerious(page), 'sign-in: axe').toEqual([]);
  await shot(page, 'console-signin');
  // Single sign-on has its button below the form; this service has no provider configured.
  await page.getByRole('button', { name: 'Sign in with single sign-on' }).click();
  await expect(page.getByRole('alert')).toContainText(/single sign-on|not configured/i);

  // A wrong password is the API's own answer, in place.
  await page.getByLabel('E-mail').fill(admin.email);
  await page.getByLabel('Password').fill('not the passphrase');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('alert').filter({ hasText: /e-mail or password/i })).toBeVisible();
  await page.getByLabel('Password').fill(admin.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Offers', exact: true }).waitFor();

  // Turn on the second factor from My account; the recovery codes are shown once.
  await go(page, 'My account');
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  await page.getByLabel('Code from the app').fill(totpCode(secret));
  await page.getByRole('button', { name: 'Turn on' }).click();
  await expect(page.getByTestId('recovery-codes').getByRole('listitem')).toHaveCount(10);
  await signOut(page);

  // Now sign-in asks for the code.
  await page.getByLabel('E-mail').fill(admin.email);
  await page.getByLabel('Password').fill(admin.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Second factor' }).waitFor();
  await page.getByLabel('Authentication code').fill('000000');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toContainText(/code/i);
  await page.getByLabel('Authentication code').fill(totpCode(secret, Date.now() + 30_000));
  await page.getByRole('button', { name: 'Verify' }).click();
  // Signed in again on the page where the session ended.
  await page.getByRole('heading', { name: 'My account' }).waitFor();

  // The wizard: institution, program, first staff user, first key; by keyboard where it matters.
  await go(page, 'Institutions');
  await page.getByRole('link', { name: 'Onboard an institution' }).click();
  await expect(page.getByRole('heading', { name: /Step 1 of 4/ })).toBeFocused();
  await checkPage(page, 'onboarding', () =>
    page.getByRole('heading', { name: /Step 1 of 4/ }).waitFor(),
  );
  const name = `Banco Teste ${randomBytes(2).toString('hex')}`;
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Plan').selectOption('enterprise');
  await page.getByLabel('Name').press('Enter');
  await expect(page.getByRole('heading', { name: /Step 2 of 4: Program/ })).toBeFocused();
  // An unknown time zone is the API's 400, shown beside the field.
  await page.getByLabel('Time zone').fill('Mars/Olympus');
  await page.getByRole('checkbox', { name: /Portuguese/ }).check();
  await page.getByRole('button', { name: 'Create institution' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(page.getByLabel('Time zone')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByLabel('Time zone')).toHaveAccessibleDescription(/IANA time zone/);
  await page.getByLabel('Time zone').fill('America/Sao_Paulo');
  await page.getByRole('button', { name: 'Create institution' }).click();
  await expect(page.getByRole('heading', { name: /Step 3 of 4/ })).toBeFocused();
  await expect(page.getByRole('status')).toContainText('America/Sao_Paulo');
  const staff = `ana@${name.toLowerCase().replace(/\W+/g, '-')}.example`;
  await page.getByLabel('E-mail').fill(staff);
  await page.getByLabel('Temporary password').fill('short');
  await page.getByRole('button', { name: 'Create staff user' }).click();
  await expect(page.getByLabel('Temporary password')).toHaveAttribute('aria-invalid', 'true');
  await page.getByLabel('Temporary password').fill('a temporary passphrase');
  await page.getByRole('button', { name: 'Create staff user' }).click();
  await expect(page.getByRole('heading', { name: /Step 4 of 4/ })).toBeFocused();
  await page.getByRole('checkbox', { name: 'claims' }).check();
  await page.getByRole('button', { name: 'Create API key' }).click();
  const key = (await page.getByTestId('new-key').textContent())!.trim();
  await shot(page, 'console-onboarding-done');

  // What the wizard made works: the key reads the feed, the staff user signs in to the portal.
  const me = await must(call('GET', '/api/v1/me', { token: key }), 200, 'the new key');
  expect(me.institution.name).toBe(name);
  await portalSession({ email: staff, password: 'a temporary passphrase' });

  // The institution's page, its suspension in the audit log.
  await page.getByRole('link', { name: `Open ${name}` }).click();
  await page.getByRole('heading', { name }).waitFor();
  await page.getByRole('button', { name: 'Suspend…' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Suspend' }).click();
  await expect(page.getByText('Suspended')).toBeVisible();
  await expect(page.getByRole('row', { name: /institution\.suspend/ })).toBeVisible();
  await must(call('GET', '/api/v1/me', { token: key }), 403, 'a suspended institution’s key');
  await checkPage(page, 'institution', () => page.getByRole('heading', { name }).waitFor());
  await go(page, 'Institutions');
  await checkPage(page, 'institutions', () => page.getByRole('link', { name }).waitFor());
});

// The portal's sign-in through an institution's identity provider, in the browser: a local
// OpenID Connect provider (oidc-provider, the api's e2e fixture) on a loopback port, the
// institution's single sign-on set through the admin API, and the sign-in page's path.
import { spawn, type ChildProcess } from 'child_process';
import { join } from 'path';
import { call, expect, makeInstitution, must, shot, test } from './fixtures';

const PROVIDER_PORT = 41518;
const ISSUER = `http://127.0.0.1:${PROVIDER_PORT}`;

async function startProvider(settings: unknown): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [join(__dirname, '..', '..', 'apps', 'api', 'test', 'fixtures', 'oidc-provider.mjs')],
    {
      env: { ...process.env, OIDC_TEST_PROVIDER: JSON.stringify(settings) },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`provider exited ${code}`)));
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
  });
  return child;
}

test("sso: staff sign in through the institution's identity provider, chosen on the sign-in page", async ({
  page,
}) => {
  const inst = await makeInstitution('SSO Bank', 'growth');
  const email = `sso-${inst.tag}@sso-bank.example`;
  const provider = await startProvider({
    port: PROVIDER_PORT,
    clients: [
      {
        client_id: 'portal',
        client_secret: 'portal-secret-0123456789',
        redirect_uris: [
          `${process.env.PORTAL_TEST_BASE_URL}/portal/api/auth/oidc/${inst.id}/callback`,
        ],
      },
    ],
    accounts: { staffer: { email, name: 'Sam', groups: ['bank-staff'] } },
    defaultAccount: 'staffer',
  });
  try {
    await must(
      call('PUT', `/admin/api/v1/institutions/${inst.id}/sso`, {
        token: process.env.PORTAL_TEST_OPERATOR_TOKEN,
        body: {
          issuer: ISSUER,
          client_id: 'portal',
          client_secret: 'portal-secret-0123456789',
          role_claim: 'groups',
          role_map: { 'bank-staff': 'member' },
          password_login: false,
        },
      }),
      200,
      'sso settings',
    );

    // Password sign-in is off for this institution: a correct password is told why.
    await page.goto('/portal/');
    await page.getByLabel('E-mail').fill(inst.admin.email);
    await page.getByLabel('Password').fill(inst.admin.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'identity provider' }).waitFor();

    // The institution's link pre-fills its id; the button names the provider.
    await page.goto(`/portal/?institution=${inst.id}`);
    await expect(page.getByLabel('Institution ID')).toHaveValue(inst.id);
    await page.getByRole('button', { name: 'Continue with single sign-on' }).click();
    const sso = page.getByRole('button', {
      name: `Sign in with 127.0.0.1:${PROVIDER_PORT} (SSO Bank)`,
    });
    await sso.waitFor();
    await shot(page, 'login-sso');
    await sso.click();
    // The provider signs "staffer" in and sends the browser back; the portal opens.
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await expect(page.getByText('SSO Bank').first()).toBeVisible();

    // An institution without single sign-on says so.
    await page.context().clearCookies();
    await page.goto('/portal/?institution=00000000-0000-4000-8000-000000000000');
    await page.getByRole('button', { name: 'Continue with single sign-on' }).click();
    await page.getByRole('alert').filter({ hasText: 'does not use single sign-on' }).waitFor();
  } finally {
    provider.kill('SIGTERM');
  }
});

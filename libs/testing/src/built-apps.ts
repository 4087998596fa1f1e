// For the browser tests' global setups (portal and widget): the BUILT apps (dist/) as child
// processes on a fresh database and a free port. Node built-ins and pg only, so that Playwright's
// own loader can import it without the Nest test harness.
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import { existsSync } from 'fs';
import net from 'net';
import { join } from 'path';
import { Client } from 'pg';

const root = join(__dirname, '..', '..', '..');

/** A port nothing listens on now (the OS picks it), so suites running at once never clash. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Runs `npm run build` when any of the given files (relative to the repository) is missing. */
export function ensureBuilt(files: string[]) {
  const need = files.filter((f) => !existsSync(join(root, f)));
  if (!need.length) return;
  process.stdout.write(`building (${need.join(', ')} missing)…\n`);
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed');
}

/** Drops and re-creates env.DATABASE_URL's database, then migrates it with the built cli. */
export async function resetDatabase(env: NodeJS.ProcessEnv) {
  const admin = new URL(env.DATABASE_URL!);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const c = new Client({ connectionString: admin.toString() });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await c.query(`CREATE DATABASE "${name}"`);
  await c.end();
  const r = spawnSync(process.execPath, [join(root, 'dist/apps/cli/main.js'), 'migrate'], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`migrate failed: ${r.stderr || r.stdout}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ok = (url: string) =>
  fetch(url).then(
    (r) => r.ok,
    () => false,
  );

/**
 * Starts dist/apps/<app>/main.js and resolves once it is ready: the api answers /health on
 * env.PORT, the worker says "worker ready" (it logs that at info level). Output is kept and
 * shown only when it fails to start.
 */
export async function startBuilt(app: 'api' | 'worker', env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [join(root, `dist/apps/${app}/main.js`)], {
    cwd: root,
    env:
      app === 'worker'
        ? { ...env, LOG_LEVEL: 'info' }
        : // Every answer checked against openapi/openapi.json; stopChild reports violations.
          { OPENAPI_RESPONSE_VALIDATION: 'fail', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (d: Buffer) => {
    output += d;
    for (const line of String(d).split('\n'))
      if (line.includes('openapi contract violation')) violations.get(child)!.push(line);
  };
  violations.set(child, []);
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${app} exited: ${output.slice(-2000)}`);
    if (
      app === 'api' ? await ok(`http://127.0.0.1:${env.PORT}/health`) : /worker ready/.test(output)
    )
      return child;
    if (Date.now() > deadline) throw new Error(`${app} did not start: ${output.slice(-2000)}`);
    await sleep(200);
  }
}

/** The OpenAPI contract violations each started api logged (OPENAPI_RESPONSE_VALIDATION). */
const violations = new WeakMap<ChildProcess, string[]>();

/**
 * SIGTERM, then SIGKILL after 8 s; resolves when the process has exited, or rejects naming the
 * OpenAPI contract violations an api logged, so the suite that ran against it fails.
 */
export function stopChild(c: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (c.exitCode !== null) return resolve();
    c.once('exit', () => resolve());
    c.kill('SIGTERM');
    setTimeout(() => c.kill('SIGKILL'), 8000).unref();
  }).then(() => {
    const found = violations.get(c) ?? [];
    if (found.length)
      throw new Error(`${found.length} OpenAPI contract violation(s):\n${found.join('\n')}`);
  });
}

import 'reflect-metadata';
import { AppConfig, ConfigError } from '@app/config';
import { createApiApp } from './app.factory';

async function main(): Promise<void> {
  const app = await createApiApp();
  const config = app.get(AppConfig);
  await app.listen(config.port);
}

main().catch((e: unknown) => {
  // Configuration and connection problems get one clear line, not a stack trace.
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
  } else {
    const err = e as { code?: string; message?: string };
    const hint =
      err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND'
        ? ' (is PostgreSQL running and DATABASE_URL right?)'
        : err.code === '3D000'
          ? ' (database missing: run `npm run migrate`, which creates it)'
          : '';
    process.stderr.write(`api failed to start: ${err.message ?? String(e)}${hint}\n`);
  }
  process.exit(1);
});

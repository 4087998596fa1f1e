import 'reflect-metadata';
import { ConfigError } from '@app/config';
import { auditVerify } from './audit-verify.command';
import { countCardLikeTokensCommand } from './count-card-like-tokens.command';
import { migrate } from './migrate.command';
import { createPartitions } from './partitions.command';
import { reencrypt } from './reencrypt.command';
import { writeOpenApi } from './openapi.command';
import { seedDemo } from './seed-demo.command';

const COMMANDS: Record<string, (args: string[]) => Promise<void>> = {
  migrate,
  partitions: createPartitions,
  'seed-demo': seedDemo,
  openapi: writeOpenApi,
  'count-card-like-tokens': countCardLikeTokensCommand,
  reencrypt,
  'audit-verify': auditVerify,
};

/** Operator commands: `node dist/apps/cli/main.js <command>` (wrapped by npm scripts). */
async function main(): Promise<void> {
  const [name, ...args] = process.argv.slice(2);
  const command = COMMANDS[name ?? ''];
  if (!command) {
    process.stderr.write(`usage: cli <${Object.keys(COMMANDS).join('|')}>\n`);
    process.exit(2);
  }
  await command(args);
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (e: unknown) => {
    const err = e as { code?: string; message?: string };
    if (e instanceof ConfigError) process.stderr.write(`${err.message}\n`);
    else if (err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND')
      process.stderr.write(
        `cannot reach PostgreSQL (${err.message}). Start it, or set DATABASE_URL. See README "Quick start".\n`,
      );
    else process.stderr.write(`failed: ${err.message ?? String(e)}\n`);
    process.exit(1);
  },
);

import { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { reencryptSecret } from '@app/core';
import { dataSourceOptions, reencryptStoredSecrets } from '@app/db';

/**
 * Moves stored secrets from SECRETS_KEY itself (releases before the per-purpose keys) to the
 * derived `secrets-encryption` key. Run it once the upgrade is known good: afterwards a rollback
 * to such a release can no longer read them (docs/operations.md, "Keys"). Safe to run again.
 */
export async function reencrypt(): Promise<void> {
  const config = loadConfig();
  const ds = await new DataSource(dataSourceOptions(config.databaseUrl)).initialize();
  try {
    const moved = await reencryptStoredSecrets(ds, (stored) =>
      reencryptSecret(stored, config.keys),
    );
    process.stdout.write(`re-encrypted ${moved} stored secret(s) under the derived key\n`);
  } finally {
    await ds.destroy();
  }
}

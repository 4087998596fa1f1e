import { DataSource } from 'typeorm';

/**
 * When the per-purpose keys came in (migration KeyDerivation: key_derivation.upgraded_at), or
 * null before that migration ran.
 */
export async function keysUpgradedAt(ds: DataSource): Promise<Date | null> {
  try {
    const [row]: { upgraded_at: Date }[] = await ds.query(`SELECT upgraded_at FROM key_derivation`);
    return row?.upgraded_at ?? null;
  } catch (e) {
    if ((e as { code?: string }).code === '42P01') return null; // not migrated yet
    throw e;
  }
}

/** The columns that hold secrets encrypted under the secrets-encryption key. */
export const ENCRYPTED_COLUMNS = [
  'webhook_secret_encrypted',
  'webhook_previous_secret_encrypted',
  'webhook_headers_encrypted',
  'webhook_client_cert_encrypted',
  'webhook_client_key_encrypted',
] as const;

/**
 * Rewrites every stored secret that `move` returns a new value for (one institution row at a
 * time, each column only if it still holds what was read, so a secret rotated meanwhile is left
 * as it is), then records the moment in key_derivation.reencrypted_at. Returns the values moved.
 */
export async function reencryptStoredSecrets(
  ds: DataSource,
  move: (stored: string) => string | null,
): Promise<number> {
  let moved = 0;
  const rows: (Record<string, string | null> & { id: string })[] = await ds.query(
    `SELECT id, ${ENCRYPTED_COLUMNS.join(', ')} FROM institution
      WHERE ${ENCRYPTED_COLUMNS.map((c) => `${c} IS NOT NULL`).join(' OR ')}`,
  );
  for (const row of rows) {
    for (const column of ENCRYPTED_COLUMNS) {
      const stored = row[column];
      const next = stored === null ? null : move(stored);
      if (next === null) continue;
      const updated: unknown[] = await ds.query(
        `UPDATE institution SET ${column} = $3 WHERE id = $1 AND ${column} = $2 RETURNING id`,
        [row.id, stored, next],
      );
      moved += updated.length;
    }
  }
  await ds.query(`UPDATE key_derivation SET reencrypted_at = now()`);
  return moved;
}

import { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { AuditLogRepository, AuditTrail } from '@app/core';
import { dataSourceOptions } from '@app/db';

/** Outcome of a chain check, as the command prints it. */
export async function verifyAuditChain(ds: DataSource) {
  return new AuditTrail(ds, new AuditLogRepository(ds)).verify();
}

/**
 * `npm run audit:verify`: walks the audit log in append order and checks every entry's link to
 * the previous one and its own hash (docs/operators.md). Exit 0 when intact, 1 at the first problem.
 */
export async function auditVerify(): Promise<void> {
  const config = loadConfig();
  const ds = await new DataSource(dataSourceOptions(config.databaseDirectUrl)).initialize();
  try {
    const { checked, problem } = await verifyAuditChain(ds);
    if (!problem) {
      process.stdout.write(`audit log intact: ${checked} entries checked\n`);
      return;
    }
    process.stderr.write(
      `audit log chain broken at entry ${problem.entry_id} (${problem.problem}: expected ${problem.expected ?? 'none'}, found ${problem.found ?? 'none'}); ${checked} entries before it are intact\n`,
    );
    process.exitCode = 1;
  } finally {
    await ds.destroy();
  }
}

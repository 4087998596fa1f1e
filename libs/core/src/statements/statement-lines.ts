import { createHash } from 'crypto';
import { DataSource, EntityManager } from 'typeorm';
import { STATEMENT_FILE_HEADER, statementFileRow } from '@app/domain';
import { LineKey, LineRow, StatementsRepository } from './statements.repository';

/** Lines read per round trip while a file is written: memory stays flat whatever its size. */
const FILE_BATCH = 5_000;

export interface StatementScope {
  institutionId: string;
  currency: string;
  from: string;
  to: string;
}

/** Every line of a period in file order, a batch at a time. */
export async function* statementLines(
  repo: StatementsRepository,
  s: StatementScope,
  m?: EntityManager | DataSource,
): AsyncGenerator<LineRow[]> {
  let after: LineKey | null = null;
  for (;;) {
    const rows = await repo.linesPage(s, after, FILE_BATCH, m);
    if (rows.length) yield rows;
    if (rows.length < FILE_BATCH) return;
    const last = rows[rows.length - 1];
    after = { day: last.period_day, at: last.cursor_at, id: last.movement_id };
  }
}

/** The lines file (header, then every line), in chunks of text. */
export async function* statementFile(
  repo: StatementsRepository,
  s: StatementScope,
  m?: EntityManager | DataSource,
): AsyncGenerator<string> {
  yield STATEMENT_FILE_HEADER;
  for await (const rows of statementLines(repo, s, m)) yield rows.map(statementFileRow).join('');
}

/** SHA-256 (lowercase hex) of the lines file: a closed statement's checksum. */
export async function statementChecksum(
  repo: StatementsRepository,
  s: StatementScope,
  m?: EntityManager | DataSource,
): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of statementFile(repo, s, m)) hash.update(chunk, 'utf8');
  return hash.digest('hex');
}

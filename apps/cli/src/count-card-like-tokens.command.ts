import { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { dataSourceOptions } from '@app/db';
import { containsCardNumber } from '@app/domain';

/** Every stored column that holds a token the api took from a request. */
export const TOKEN_COLUMNS: [table: string, column: string][] = [
  ['transaction', 'cardholder_token'],
  ['transaction', 'instrument_token'],
  ['cardholder_offer', 'cardholder_token'],
  ['cardholder_offer', 'card_token'],
  ['redemption', 'cardholder_token'],
  ['engagement_event', 'cardholder_token'],
  ['engagement_cardholder_number', 'cardholder_token'],
];

/**
 * What the card-number rule would refuse among what is stored: per column, the distinct stored
 * tokens that hold a card number. Reads only; run it before a release that tightens the rule.
 * PostgreSQL narrows to values with 13 digits in a row or two 4-digit groups with a separator
 * (every card reading has one or the other), the rule itself runs here.
 */
export async function countCardLikeTokens(ds: DataSource): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [table, column] of TOKEN_COLUMNS) {
    const rows: { v: string }[] = await ds.query(
      `SELECT DISTINCT ${column} AS v FROM "${table}"
        WHERE ${column} ~ '[0-9]{13}|[0-9]{4}[ .-][0-9]{4}'`,
    );
    counts[`${table}.${column}`] = rows.filter((r) => containsCardNumber(r.v)).length;
  }
  return counts;
}

export async function countCardLikeTokensCommand(): Promise<void> {
  const config = loadConfig();
  const ds = await new DataSource(dataSourceOptions(config.databaseDirectUrl)).initialize();
  try {
    const counts = await countCardLikeTokens(ds);
    for (const [column, n] of Object.entries(counts)) process.stdout.write(`${column}\t${n}\n`);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    process.stdout.write(`total\t${total}\n`);
  } finally {
    await ds.destroy();
  }
}

import { DataSource } from 'typeorm';
import { dataSourceOptions, prepared } from '@app/db';
import { TEST_DATABASE_URL } from '@app/testing';

const HOT = prepared('SELECT count(*)::int AS n FROM institution WHERE id = $1');

/** The names of the statements prepared on the connection a query runner holds, after HOT ran twice. */
async function preparedAfterTwoRuns(via: 'direct' | 'pooler'): Promise<string[]> {
  const ds = await new DataSource(
    dataSourceOptions(TEST_DATABASE_URL, { entities: [], migrations: [] }, via),
  ).initialize();
  const qr = ds.createQueryRunner();
  try {
    for (let i = 0; i < 2; i++)
      expect(await qr.query(HOT, ['00000000-0000-0000-0000-000000000000'])).toEqual([{ n: 0 }]);
    const rows: { name: string; statement: string }[] = await qr.query(
      `SELECT name, statement FROM pg_prepared_statements`,
    );
    return rows.filter((r) => r.statement === HOT).map((r) => r.name);
  } finally {
    await qr.release();
    await ds.destroy();
  }
}

describe('prepared statements (hot paths)', () => {
  it('a direct connection prepares a marked statement once and reuses it', async () => {
    expect(await preparedAfterTwoRuns('direct')).toEqual([expect.stringMatching(/^plo_\d+$/)]);
  });

  it('a pool behind a transaction pooler prepares nothing', async () => {
    expect(await preparedAfterTwoRuns('pooler')).toEqual([]);
  });
});

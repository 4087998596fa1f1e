import { Client } from 'pg';
import {
  dataSourceOptions,
  prepared,
  PreparingClient,
  UnnamedStatementsClient,
} from './data-source';

const HOT = prepared('SELECT $1::int AS hot');

describe('prepared statements: on direct connections only', () => {
  let sent: unknown[][];
  beforeEach(() => {
    sent = [];
    jest.spyOn(Client.prototype, 'query').mockImplementation(((...args: unknown[]) => {
      sent.push(args);
      return Promise.resolve({ rows: [] });
    }) as never);
  });
  afterEach(() => jest.restoreAllMocks());

  const client = (C: typeof Client) => new C({ connectionString: 'postgres://nowhere:1/x' });

  it('a direct connection sends a prepared statement by name, any other statement as it came', async () => {
    const c = client(PreparingClient);
    await c.query(HOT, [1]);
    await c.query('SELECT 2', []);
    expect(sent[0]).toEqual([{ name: expect.stringMatching(/^plo_\d+$/), text: HOT, values: [1] }]);
    expect(sent[1]).toEqual(['SELECT 2', []]);
  });

  it('through a pooler the same statement goes unnamed', async () => {
    await client(UnnamedStatementsClient).query(HOT, [1]);
    expect(sent[0]).toEqual([HOT, [1]]);
  });

  it('a name the caller gives is refused on both, before it reaches PostgreSQL', () => {
    for (const C of [UnnamedStatementsClient, PreparingClient])
      expect(() => client(C).query({ name: 'p1', text: 'SELECT 1' })).toThrow(
        /named prepared statement "p1" refused/,
      );
    expect(sent).toEqual([]);
  });

  it('through a pooler, no startup options and the unnamed client; directly, jit off and the preparing one', () => {
    const pooled = dataSourceOptions('postgres://p/x', {}, 'pooler').extra;
    const direct = dataSourceOptions('postgres://p/x').extra;
    expect(pooled).not.toHaveProperty('options');
    expect(direct.options).toBe('-c jit=off');
    expect(pooled.Client).toBe(UnnamedStatementsClient);
    expect(direct.Client).toBe(PreparingClient);
  });
});

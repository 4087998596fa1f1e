import { dataSourceOptions, UnnamedStatementsClient } from './data-source';

describe('the pools work through a pooler in transaction mode', () => {
  it('a named prepared statement is refused before it reaches PostgreSQL', () => {
    const client = new UnnamedStatementsClient({ connectionString: 'postgres://nowhere:1/x' });
    expect(() => client.query({ name: 'p1', text: 'SELECT 1' })).toThrow(
      /named prepared statement "p1" refused/,
    );
  });

  it('through a pooler, no startup options; directly, jit off per connection; both guarded', () => {
    const pooled = dataSourceOptions('postgres://p/x', {}, 'pooler').extra;
    const direct = dataSourceOptions('postgres://p/x').extra;
    expect(pooled).not.toHaveProperty('options');
    expect(direct.options).toBe('-c jit=off');
    expect(pooled.Client).toBe(UnnamedStatementsClient);
    expect(direct.Client).toBe(UnnamedStatementsClient);
  });
});

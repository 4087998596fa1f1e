import { readFileSync } from 'fs';
import { join } from 'path';
import { AWAITING_KEYS, SCHEMA_CLASSES, checkSchemaClasses, unexcused } from './schema-classes';

describe('schema classes', () => {
  it('docs/scaling.md lists every table with its class and why, as SCHEMA_CLASSES does', () => {
    const doc = readFileSync(join(__dirname, '../../../docs/scaling.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| (tenant|reference|global) \| (.+) \|$/gm)];
    expect(Object.fromEntries(rows.map((r) => [r[1], { class: r[2], why: r[3] }]))).toEqual(
      SCHEMA_CLASSES,
    );
  });

  const classes = {
    parent: { class: 'tenant', why: '' },
    child: { class: 'tenant', why: '' },
    ref: { class: 'reference', why: '' },
    glob: { class: 'global', why: '' },
  } as const;
  const tables = Object.keys(classes).map((name) => ({ name, institutionId: true }));
  const pk = (table: string, columns: string[]) => ({
    table,
    name: `${table}_pkey`,
    type: 'p' as const,
    columns,
    refTable: null,
    refColumns: [],
  });
  const fk = (table: string, columns: string[], refTable: string, refColumns: string[]) => ({
    table,
    name: `${table}_${refTable}_fkey`,
    type: 'f' as const,
    columns,
    refTable,
    refColumns,
  });
  const keys = [pk('parent', ['id', 'institution_id']), pk('child', ['id', 'institution_id'])];

  it('accepts co-located tenant keys in any column order and tenant → reference keys', () => {
    expect(
      checkSchemaClasses(
        tables,
        [
          ...keys,
          fk('child', ['parent_id', 'institution_id'], 'parent', ['id', 'institution_id']),
          fk('child', ['ref_id'], 'ref', ['id']),
          fk('glob', ['ref_id'], 'ref', ['id']),
        ],
        classes,
      ),
    ).toEqual([]);
  });

  it('refuses a tenant key mapped to another column, and global → tenant keys', () => {
    const found = checkSchemaClasses(
      tables,
      [
        ...keys,
        fk('child', ['institution_id', 'parent_id'], 'parent', ['id', 'institution_id']),
        fk('glob', ['parent_id', 'institution_id'], 'parent', ['id', 'institution_id']),
      ],
      classes,
    );
    expect(found.map((v) => [v.table, v.rule])).toEqual([
      ['child', 'foreign key between tenant tables without institution_id on both sides'],
      ['glob', 'foreign key from a global table to a tenant table'],
    ]);
  });

  it('AWAITING_KEYS excuses its tables and the keys to them, and reports entries that excuse nothing', () => {
    const v = { object: null, rule: 'x' };
    expect(
      unexcused(
        [
          { ...v, table: 'transaction', refTable: null },
          { ...v, table: 'redemption', refTable: 'transaction' },
          { ...v, table: 'redemption', refTable: null },
        ],
        { transaction: '', webhook_delivery: '' },
      ),
    ).toEqual({
      violations: [{ ...v, table: 'redemption', refTable: null }],
      stale: ['webhook_delivery'],
    });
    for (const t of Object.keys(AWAITING_KEYS)) expect(SCHEMA_CLASSES[t]).toBeDefined();
  });
});

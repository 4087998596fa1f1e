import { Client } from 'pg';
import {
  AWAITING_KEYS,
  SCHEMA_CLASSES,
  checkSchemaClasses,
  readSchemaCatalog,
  unexcused,
} from '@app/db/schema-classes';
import { TEST_DATABASE_URL } from '@app/testing/test-env';

// The schema is ready for a distribution by institution (docs/scaling.md, step 5): every table of
// the database the migrations built from empty (its untouched copy, <TEST_DATABASE_URL>_schema)
// has a class in SCHEMA_CLASSES and keeps its class's rules (libs/db/src/schema-classes.ts).

async function connect(url: string): Promise<Client> {
  const c = new Client({ connectionString: url });
  await c.connect();
  return c;
}
const reader =
  (c: Client) =>
  async <T>(sql: string) =>
    (await c.query(sql)).rows as T[];

describe('schema classes (tenant, reference, global) hold in the migrated schema', () => {
  let db: Client;
  beforeAll(async () => {
    db = await connect(`${TEST_DATABASE_URL}_schema`);
  });
  afterAll(() => db.end());

  it('every table has a class and keeps its rules; AWAITING_KEYS lists only tables that still break them', async () => {
    const { tables, constraints } = await readSchemaCatalog(reader(db));
    expect(tables.length).toBeGreaterThan(40);
    const { violations, stale } = unexcused(checkSchemaClasses(tables, constraints));
    expect(violations).toEqual([]);
    expect(stale).toEqual([]);
  });

  it('every class says why, and AWAITING_KEYS names classified tables only', () => {
    for (const [table, c] of Object.entries(SCHEMA_CLASSES)) {
      expect({ table, why: c.why.length > 10 }).toEqual({ table, why: true });
    }
    for (const table of Object.keys(AWAITING_KEYS)) expect(SCHEMA_CLASSES[table]).toBeDefined();
  });

  // The check can fail: tables built against the rules, in a transaction rolled back.
  it('reports a table without a class, and tenant keys and foreign keys without institution_id', async () => {
    const c = await connect(TEST_DATABASE_URL);
    try {
      await c.query('BEGIN');
      await c.query(`
        CREATE TABLE zz_unclassified (id uuid PRIMARY KEY);
        CREATE TABLE zz_tenant_parent (institution_id uuid NOT NULL, id uuid NOT NULL,
                                       PRIMARY KEY (institution_id, id), UNIQUE (id));
        CREATE TABLE zz_tenant_child (id uuid PRIMARY KEY, institution_id uuid NOT NULL,
                                      parent_id uuid REFERENCES zz_tenant_parent (id),
                                      user_id uuid REFERENCES portal_user (id));
        CREATE UNIQUE INDEX zz_tenant_child_parent ON zz_tenant_child (parent_id);
        CREATE TABLE zz_reference (id uuid PRIMARY KEY, parent_id uuid, institution_id uuid,
                                   FOREIGN KEY (institution_id, parent_id) REFERENCES zz_tenant_parent);`);
      const { tables, constraints } = await readSchemaCatalog(reader(c));
      const classes = {
        ...SCHEMA_CLASSES,
        zz_tenant_parent: { class: 'tenant', why: 'test' },
        zz_tenant_child: { class: 'tenant', why: 'test' },
        zz_reference: { class: 'reference', why: 'test' },
      } as const;
      const found = unexcused(checkSchemaClasses(tables, constraints, classes)).violations.filter(
        (x) => x.table.startsWith('zz_'),
      );
      // Shown once in the report of issue 27: this is what a table against the rules gets.
      console.log(JSON.stringify(found, null, 1));
      expect(found.map((x) => [x.table, x.object, x.rule]).sort()).toEqual(
        [
          [
            'zz_unclassified',
            null,
            'no class: add it to SCHEMA_CLASSES (libs/db/src/schema-classes.ts)',
          ],
          [
            'zz_tenant_parent',
            'zz_tenant_parent_id_key',
            'unique constraint without institution_id',
          ],
          ['zz_tenant_child', 'zz_tenant_child_pkey', 'primary key without institution_id'],
          ['zz_tenant_child', 'zz_tenant_child_parent', 'unique index without institution_id'],
          [
            'zz_tenant_child',
            'zz_tenant_child_parent_id_fkey',
            'foreign key between tenant tables without institution_id on both sides',
          ],
          [
            'zz_tenant_child',
            'zz_tenant_child_user_id_fkey',
            'foreign key from a tenant table to a global table',
          ],
          [
            'zz_reference',
            'zz_reference_institution_id_parent_id_fkey',
            'foreign key from a reference table to a tenant table',
          ],
        ].sort(),
      );
    } finally {
      await c.query('ROLLBACK');
      await c.end();
    }
  });
});

import { getMetadataStorage } from 'class-validator';
import { readFileSync } from 'fs';
import { join } from 'path';
import { EnvVars, validateEnv } from './env';

const root = join(__dirname, '..', '..', '..');

/** Every variable of the schema: each has at least one validation rule. */
function schemaVariables(): string[] {
  const rules = getMetadataStorage().getTargetValidationMetadatas(EnvVars, '', true, false);
  return [...new Set(rules.map((r) => r.propertyName))].sort();
}

function exampleValues(): Record<string, string> {
  const lines = readFileSync(join(root, '.env.example'), 'utf8').split('\n');
  return Object.fromEntries(
    lines
      .filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

describe('.env.example and the README configuration table', () => {
  it('the schema has the variables we expect to find (sanity of the reflection)', () => {
    expect(schemaVariables()).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'PORT', 'SECRETS_KEY', 'PUBLIC_BASE_URL']),
    );
  });

  it('.env.example lists exactly the variables of the schema', () => {
    expect(Object.keys(exampleValues()).sort()).toEqual(schemaVariables());
  });

  it('.env.example values pass validation as they are', () => {
    expect(() => validateEnv(exampleValues())).not.toThrow();
  });

  it('.env.example shows each default the schema has', () => {
    const defaults = new EnvVars() as unknown as Record<string, unknown>;
    const example = exampleValues();
    const differing = Object.entries(defaults)
      .filter(([k, v]) => v !== undefined && String(v) !== example[k])
      .map(([k, v]) => `${k}: schema ${String(v)}, .env.example ${example[k]}`);
    expect(differing).toEqual([]);
  });

  it('the README configuration table names every variable', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'));
    const rows = table.slice(0, table.indexOf('\n## ', 5));
    const missing = schemaVariables().filter((v) => !rows.includes(`\`${v}\``));
    expect(missing).toEqual([]);
  });
});

import { spawnSync } from 'child_process';
import { join } from 'path';

describe('generated clients (clients/typescript/src/schema.ts, clients/bruno)', () => {
  it('match openapi/openapi.json (else: npm run gen:client)', () => {
    const root = join(__dirname, '..', '..', '..', '..');
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'gen-clients.js'), '--check'], {
      encoding: 'utf8',
    });
    expect(r.stdout).toContain('generated clients match openapi/openapi.json');
    expect(r.status).toBe(0);
  });
});

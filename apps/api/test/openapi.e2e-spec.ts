import { readFileSync } from 'fs';
import { join } from 'path';
import { renderOpenApi } from '../../cli/src/openapi.command';

interface Operation {
  operationId?: string;
  summary?: string;
  responses?: Record<string, unknown>;
  security?: unknown[];
}

describe('OpenAPI document', () => {
  let doc: {
    paths: Record<string, Record<string, Operation>>;
    components: {
      schemas: Record<
        string,
        {
          properties?: Record<
            string,
            { example?: unknown; $ref?: string; allOf?: unknown; items?: { $ref?: string } }
          >;
        }
      >;
    };
  };
  let rendered: string;

  beforeAll(async () => {
    rendered = await renderOpenApi();
    doc = JSON.parse(rendered);
  });

  it('openapi/openapi.json matches the code (run `npm run openapi` after changing an endpoint)', () => {
    const committed = readFileSync(join(__dirname, '../../../openapi/openapi.json'), 'utf8');
    expect(committed).toBe(rendered);
  });

  it('every operation has an operationId, a summary and documented responses', () => {
    const ids = new Set<string>();
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect({ where, operationId: !!op.operationId }).toEqual({ where, operationId: true });
        expect({ where, summary: !!op.summary }).toEqual({ where, summary: true });
        expect({ where, responses: Object.keys(op.responses ?? {}).length > 0 }).toEqual({
          where,
          responses: true,
        });
        expect(ids.has(op.operationId!)).toBe(false);
        ids.add(op.operationId!);
      }
    }
  });

  it('public routes declare the API key, admin routes an operator token or the console session', () => {
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const op of Object.values(methods)) {
        const schemes = (op.security ?? []).flatMap((s) => Object.keys(s as object));
        if (path.startsWith('/api/v1/'))
          expect({ path, schemes }).toEqual({ path, schemes: ['api-key'] });
        if (path.startsWith('/admin/api/v1/'))
          expect({ path, schemes: schemes.sort() }).toEqual({
            path,
            schemes:
              path === '/admin/api/v1/auth/login' || path.startsWith('/admin/api/v1/auth/oidc/')
                ? []
                : ['operator-session', 'operator-token'],
          });
      }
    }
  });

  it('every DTO property carries an example (or refers to another schema)', () => {
    const missing: string[] = [];
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      for (const [prop, p] of Object.entries(schema.properties ?? {})) {
        if (p.example === undefined && !p.$ref && !p.allOf && !p.items?.$ref)
          missing.push(`${name}.${prop}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

import { NestFactory } from '@nestjs/core';
import { mkdirSync, writeFileSync } from 'fs';
import { dirname, resolve } from 'path';
import { AppModule } from '../../api/src/app.module';
import { buildOpenApiDocument } from '../../api/src/docs/swagger';

/** Renders the OpenAPI document as the api serves it, sorted for stable diffs. */
export async function renderOpenApi(): Promise<string> {
  // preview: routes and metadata only; no provider runs, so no database or Redis is needed.
  const app = await NestFactory.create(AppModule, {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  const doc = buildOpenApiDocument(app);
  await app.close();
  return `${JSON.stringify(sortKeys(doc), null, 2)}\n`;
}

export async function writeOpenApi(args: string[]): Promise<void> {
  const out = resolve(args[0] ?? 'openapi/openapi.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, await renderOpenApi());
  process.stdout.write(`wrote ${out}\n`);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

import { existsSync, readFileSync } from 'fs';
import { join } from 'path';
import { getMetadataStorage } from 'class-validator';
import { parse } from 'yaml';
import { EnvVars } from './env';

/**
 * docker-compose.yml without Docker (CI has no engine): its structure and every reference it
 * makes — the one image, the env names (against the configuration schema), ports, health checks,
 * start order — checked as data.
 */
const root = join(__dirname, '..', '..', '..');

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  restart?: string;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  profiles?: string[];
}

const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;
const APP = ['migrate', 'api', 'worker', 'seed'];

function schemaVariables(): Set<string> {
  const rules = getMetadataStorage().getTargetValidationMetadatas(EnvVars, '', true, false);
  return new Set(rules.map((r) => r.propertyName));
}

describe('docker-compose.yml', () => {
  it('has the infrastructure, a one-off migration, api, worker and an optional seed', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['api', 'migrate', 'postgres', 'redis', 'seed', 'worker'].sort(),
    );
    expect(services.seed.profiles).toEqual(['seed']);
  });

  it('builds one image, once, and every app service runs that image', () => {
    const building = Object.entries(services).filter(([, s]) => s.build !== undefined);
    expect(building.map(([name]) => name)).toEqual(['migrate']);
    const image = services.migrate.image;
    expect(image).toBeTruthy();
    for (const name of APP) expect(services[name].image).toBe(image);
  });

  it('runs the bundles the build produces', () => {
    const webpack = readFileSync(join(root, 'webpack.config.js'), 'utf8');
    for (const name of APP) {
      const [node, bundle, ...args] = services[name].command!;
      expect(node).toBe('node');
      const app = /^dist\/apps\/(\w+)\/main\.js$/.exec(bundle)?.[1];
      expect(webpack).toContain(`'${app}'`);
      if (app === 'cli') expect(['migrate', 'seed-demo']).toContain(args[0]);
    }
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/COPY --from=build \/app\/dist dist/);
  });

  it('passes only variables the configuration schema knows', () => {
    const known = schemaVariables();
    for (const name of APP) {
      const unknown = Object.keys(services[name].environment ?? {}).filter((v) => !known.has(v));
      expect({ service: name, unknown }).toEqual({ service: name, unknown: [] });
    }
    // Production refuses to start without these two: compose must ask for them.
    expect(services.api.environment).toMatchObject({
      NODE_ENV: 'production',
      SECRETS_KEY: expect.stringMatching(/^\$\{SECRETS_KEY:\?/),
      OPERATOR_TOKEN: expect.stringMatching(/^\$\{OPERATOR_TOKEN:\?/),
    });
  });

  it('migrates once before the api and the worker start; the api does not migrate on boot', () => {
    for (const name of ['api', 'worker', 'seed'])
      expect(services[name].depends_on?.migrate).toEqual({
        condition: 'service_completed_successfully',
      });
    expect(services.api.environment?.MIGRATIONS_RUN_ON_BOOT).toBe('false');
    expect(services.migrate.restart).toBe('no');
  });

  it('waits on health: every service_healthy dependency has a health check', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
        expect({ name, dep, exists: dep in services }).toEqual({ name, dep, exists: true });
        expect(['service_healthy', 'service_completed_successfully']).toContain(condition);
        if (condition === 'service_healthy') expect(services[dep].healthcheck).toBeDefined();
      }
    }
  });

  it('restarts the long-running services and checks them on the ports they listen on', () => {
    for (const name of ['postgres', 'redis', 'api', 'worker'])
      expect(services[name].restart).toBe('unless-stopped');
    const apiPort = services.api.environment?.PORT ?? String(new EnvVars().PORT);
    expect(services.api.ports).toEqual([`${apiPort}:${apiPort}`]);
    expect(services.api.healthcheck?.test.join(' ')).toContain(`127.0.0.1:${apiPort}/ready`);
    const workerPort = services.worker.environment?.WORKER_HEALTH_PORT;
    expect(workerPort).toBeTruthy();
    expect(services.worker.healthcheck?.test.join(' ')).toContain(`127.0.0.1:${workerPort}/ready`);
    const exposed = /^EXPOSE (.+)$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))?.[1];
    expect(exposed?.split(/\s+/)).toEqual(expect.arrayContaining([apiPort, workerPort]));
  });

  it('.dockerignore keeps host packages, builds and secrets out of the image', () => {
    const file = join(root, '.dockerignore');
    expect(existsSync(file)).toBe(true);
    const lines = readFileSync(file, 'utf8').split('\n');
    for (const entry of ['**/node_modules', 'dist', 'portal/dist', '.env', '.git'])
      expect(lines).toContain(entry);
  });
});

import { ConfigError, validateEnv } from './env';
import { AppConfig, loadConfig } from './app-config';

describe('configuration', () => {
  const good = {
    NODE_ENV: 'production',
    SECRETS_KEY: Buffer.alloc(32, 3).toString('base64'),
    OPERATOR_TOKEN: 'x'.repeat(32),
  };

  it('applies defaults', () => {
    const env = validateEnv({ NODE_ENV: 'development' });
    expect(env.PORT).toBe(3000);
    expect(env.DATABASE_URL).toBe('postgres://postgres:postgres@localhost:5432/offers');
    expect(env.REDIS_URL).toBe('redis://localhost:6379');
    expect(env.WEBHOOK_RETRY_BASE_MS).toBe(30_000);
    expect(env.WEBHOOK_ALLOW_PRIVATE_URLS).toBe(false);
    expect(env.METRICS_TOKEN).toBeUndefined();
    expect([
      env.HTTP_HEADERS_TIMEOUT_MS,
      env.HTTP_REQUEST_TIMEOUT_MS,
      env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    ]).toEqual([10_000, 60_000, 65_000]);
  });

  it('converts numbers and booleans', () => {
    const env = validateEnv({
      ...good,
      PORT: '8080',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_BASE_MS: '50',
    });
    expect(env.PORT).toBe(8080);
    expect(env.WEBHOOK_ALLOW_PRIVATE_URLS).toBe(true);
    expect(env.WEBHOOK_RETRY_BASE_MS).toBe(50);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL'],
    [{ SECRETS_KEY: 'short' }, 'SECRETS_KEY'],
    [{ OPERATOR_TOKEN: 'short' }, 'OPERATOR_TOKEN'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
    [{ WEBHOOK_RETRY_BASE_MS: '0' }, 'WEBHOOK_RETRY_BASE_MS'],
    [{ METRICS_TOKEN: 'x'.repeat(31) }, 'METRICS_TOKEN'],
    [{ HTTP_HEADERS_TIMEOUT_MS: 'soon' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ HTTP_REQUEST_TIMEOUT_MS: '50' }, 'HTTP_REQUEST_TIMEOUT_MS'],
    [{ HTTP_KEEP_ALIVE_TIMEOUT_MS: '-1' }, 'HTTP_KEEP_ALIVE_TIMEOUT_MS'],
    [
      { HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' },
      'HTTP_HEADERS_TIMEOUT_MS',
    ],
    [{ REDIS_CLUSTER_NODES: 'redis://10.0.0.1:6379' }, 'REDIS_CLUSTER_NODES'],
    [{ REDIS_CLUSTER_NODES: '10.0.0.1:6379, 10.0.0.2:6379' }, 'REDIS_CLUSTER_NODES'],
    [{ REDIS_CLUSTER_NODES: '10.0.0.1' }, 'REDIS_CLUSTER_NODES'],
    [{ REDIS_CLUSTER_NODES: '10.0.0.1:6379', QUEUE_PREFIX: '{offers}' }, 'QUEUE_PREFIX'],
  ])('names the bad variable: %j', (override, name) => {
    expect(() => validateEnv({ ...good, ...override })).toThrow(ConfigError);
    try {
      validateEnv({ ...good, ...override });
    } catch (e) {
      expect((e as ConfigError).message).toContain(name);
    }
  });

  it('requires SECRETS_KEY and OPERATOR_TOKEN in production', () => {
    expect(() => validateEnv({ NODE_ENV: 'production' })).toThrow(
      /SECRETS_KEY[\s\S]*OPERATOR_TOKEN/,
    );
  });

  it('accepts SECRETS_KEY as 64 hex characters and decodes it to 32 bytes', () => {
    const config = new AppConfig(validateEnv({ ...good, SECRETS_KEY: 'ab'.repeat(32) }));
    expect(config.secretsKey).toEqual(Buffer.alloc(32, 0xab));
  });

  it('one Redis by REDIS_URL unless REDIS_CLUSTER_NODES names a cluster, which then replaces it', () => {
    expect(new AppConfig(validateEnv({ ...good, REDIS_URL: 'rediss://u:p@r:6380' })).redis).toEqual(
      { url: 'rediss://u:p@r:6380', cluster: undefined },
    );
    const config = new AppConfig(
      validateEnv({
        ...good,
        REDIS_URL: 'redis://ignored:6379',
        REDIS_CLUSTER_NODES: 'redis-0.cache:6379,10.0.0.2:7000,[fd00::3]:6380',
        REDIS_CLUSTER_USERNAME: 'offers',
        REDIS_CLUSTER_PASSWORD: 'secret',
        REDIS_CLUSTER_TLS: 'true',
      }),
    );
    expect(config.redis.cluster).toEqual({
      nodes: [
        { host: 'redis-0.cache', port: 6379 },
        { host: '10.0.0.2', port: 7000 },
        { host: 'fd00::3', port: 6380 },
      ],
      username: 'offers',
      password: 'secret',
      tls: true,
    });
  });

  it('outside production generates missing secrets (without touching a real .env here)', () => {
    const env: NodeJS.ProcessEnv = { NODE_ENV: 'development' };
    const config = loadConfig({ env, envFile: '/nonexistent/.env' });
    expect(config.secretsKey).toHaveLength(32);
    expect(config.operatorToken.length).toBeGreaterThanOrEqual(32);
    expect(env.SECRETS_KEY).toBeDefined();
  });
});

import { randomBytes } from 'crypto';
import { appendFileSync, existsSync } from 'fs';
import { resolve } from 'path';
import { KeyRing } from './derived-keys';
import { defaultOfferApproval, OfferApprovalMode } from '@app/domain';
import { EnvVars, validateEnv } from './env';

/** A node of a Redis Cluster. */
export interface RedisNode {
  host: string;
  port: number;
}

/**
 * Where Redis is: one server (`url`, REDIS_URL) or, when `cluster` is set (REDIS_CLUSTER_NODES),
 * a Redis Cluster, and then `url` is not used. Connections are made by libs/queue's createRedis.
 */
export interface RedisSettings {
  url: string;
  cluster?: { nodes: RedisNode[]; username?: string; password?: string; tls: boolean };
}

/** Typed, validated configuration. Built once per process by loadConfig(). */
export class AppConfig {
  readonly nodeEnv: EnvVars['NODE_ENV'];
  readonly databaseUrl: string;
  /** A session to PostgreSQL (migrations, LISTEN): DATABASE_DIRECT_URL, else DATABASE_URL. */
  readonly databaseDirectUrl: string;
  /** DATABASE_URL is a pooler in transaction mode (DATABASE_DIRECT_URL is set): no startup options. */
  readonly databasePooled: boolean;
  readonly databaseReplicaUrl?: string;
  /** Redis: REDIS_URL, or the cluster of REDIS_CLUSTER_NODES. */
  readonly redis: RedisSettings;
  readonly port: number;
  /** The api's separate metrics port; undefined = /metrics on the public port. */
  readonly metricsPort?: number;
  /** Bearer token that /metrics on PORT requires when set. */
  readonly metricsToken?: string;
  /** The api's HTTP server timeouts (Node's headersTimeout, requestTimeout, keepAliveTimeout). */
  readonly http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number };
  readonly secretsKey: Buffer;
  /** The per-purpose keys derived from secretsKey (docs/operations.md, "Keys"). */
  readonly keys: KeyRing;
  readonly operatorToken: string;
  /** Operators' OpenID Connect sign-in (docs/operators.md#single-sign-on); undefined when off. */
  readonly operatorOidc?: {
    issuer: string;
    clientId: string;
    clientSecret: string;
    roleClaim: string;
  };
  readonly webhook: {
    allowPrivateUrls: boolean;
    retryBaseMs: number;
    timeoutMs: number;
    concurrency: number;
    relayIntervalMs: number;
    stuckAfterMs: number;
    leaseGraceMs: number;
    replayRatePerSecond: number;
    disableAfterMs: number;
  };
  readonly rateLimits: {
    defaultPerMinute: number;
    reportingPerMinute: number;
    widgetPerSessionPerMinute: number;
  };
  readonly migrationsRunOnBoot: boolean;
  readonly logLevel: string;
  readonly logFormat: 'pretty' | 'json';
  readonly trustProxy?: string;
  readonly sessionTtlHours: number;
  readonly workerConcurrency: number;
  readonly workerHealthPort: number;
  readonly queuePrefix: string;
  readonly matching: { relayGraceMs: number; relayIntervalMs: number };
  /** Cardholder erasures: how long one waiting for a pending delivery waits before a new try. */
  readonly erasure: { retryMs: number };
  readonly settlementSchedule: string;
  /** Maker–checker for offers (OFFER_APPROVAL; default by NODE_ENV). */
  readonly offerApproval: OfferApprovalMode;
  /** How long each data class is kept (docs/retention.md). */
  readonly retention: { engagementMonths: number; webhookDays: number; transactionsMonths: number };
  readonly smtp?: { url: string; from: string };
  readonly publicBaseUrl?: string;
  /** Responses (and accepted requests) checked against the OpenAPI document: tests only. */
  readonly openApiValidation: EnvVars['OPENAPI_RESPONSE_VALIDATION'];

  constructor(env: EnvVars) {
    this.nodeEnv = env.NODE_ENV;
    this.databaseUrl = env.DATABASE_URL;
    this.databaseDirectUrl = env.DATABASE_DIRECT_URL ?? env.DATABASE_URL;
    this.databasePooled = env.DATABASE_DIRECT_URL !== undefined;
    this.databaseReplicaUrl = env.DATABASE_REPLICA_URL;
    this.redis = {
      url: env.REDIS_URL,
      cluster: env.REDIS_CLUSTER_NODES
        ? {
            nodes: parseNodes(env.REDIS_CLUSTER_NODES),
            username: env.REDIS_CLUSTER_USERNAME,
            password: env.REDIS_CLUSTER_PASSWORD,
            tls: env.REDIS_CLUSTER_TLS,
          }
        : undefined,
    };
    this.port = env.PORT;
    this.metricsPort = env.METRICS_PORT;
    this.metricsToken = env.METRICS_TOKEN;
    this.http = {
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    };
    this.secretsKey = decodeKey(env.SECRETS_KEY!);
    this.keys = new KeyRing(this.secretsKey);
    this.operatorToken = env.OPERATOR_TOKEN!;
    this.operatorOidc = env.OPERATOR_OIDC_ISSUER
      ? {
          issuer: env.OPERATOR_OIDC_ISSUER,
          clientId: env.OPERATOR_OIDC_CLIENT_ID!,
          clientSecret: env.OPERATOR_OIDC_CLIENT_SECRET!,
          roleClaim: env.OPERATOR_OIDC_ROLE_CLAIM,
        }
      : undefined;
    this.webhook = {
      allowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS,
      retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      concurrency: env.WEBHOOK_CONCURRENCY,
      relayIntervalMs: env.WEBHOOK_RELAY_INTERVAL_MS,
      stuckAfterMs: env.WEBHOOK_STUCK_AFTER_MS,
      leaseGraceMs: env.WEBHOOK_LEASE_GRACE_MS,
      replayRatePerSecond: env.WEBHOOK_REPLAY_RATE_PER_S,
      disableAfterMs: Math.round(env.WEBHOOK_DISABLE_AFTER_DAYS * 86_400_000),
    };
    this.rateLimits = {
      defaultPerMinute: env.RATE_LIMIT_DEFAULT_PER_MINUTE,
      reportingPerMinute: env.RATE_LIMIT_REPORTING_PER_MINUTE,
      widgetPerSessionPerMinute: env.WIDGET_RATE_LIMIT_PER_MINUTE,
    };
    this.migrationsRunOnBoot = env.MIGRATIONS_RUN_ON_BOOT;
    this.logLevel = env.LOG_LEVEL;
    this.logFormat = env.LOG_FORMAT || (env.NODE_ENV === 'development' ? 'pretty' : 'json');
    this.trustProxy = env.TRUST_PROXY;
    this.sessionTtlHours = env.SESSION_TTL_HOURS;
    this.workerConcurrency = env.WORKER_CONCURRENCY;
    this.workerHealthPort = env.WORKER_HEALTH_PORT;
    this.queuePrefix = env.QUEUE_PREFIX;
    this.matching = {
      relayGraceMs: env.MATCH_RELAY_GRACE_MS,
      relayIntervalMs: env.MATCH_RELAY_INTERVAL_MS,
    };
    this.erasure = { retryMs: env.ERASURE_RETRY_MS };
    this.settlementSchedule = env.SETTLEMENT_SCHEDULE;
    this.offerApproval = env.OFFER_APPROVAL ?? defaultOfferApproval(env.NODE_ENV);
    this.retention = {
      engagementMonths: env.RETENTION_ENGAGEMENT_MONTHS,
      webhookDays: env.RETENTION_WEBHOOK_DAYS,
      transactionsMonths: env.RETENTION_TRANSACTIONS_MONTHS,
    };
    this.smtp = env.SMTP_URL
      ? { url: env.SMTP_URL, from: env.SMTP_FROM ?? 'offers@localhost' }
      : undefined;
    this.publicBaseUrl = env.PUBLIC_BASE_URL;
    this.openApiValidation = env.OPENAPI_RESPONSE_VALIDATION;
  }

  get isProduction(): boolean {
    return this.nodeEnv === 'production';
  }
}

/** host:port,host:port,… (an IPv6 host in brackets: [::1]:7000). */
function parseNodes(list: string): RedisNode[] {
  return list.split(',').map((node) => {
    const colon = node.lastIndexOf(':');
    return {
      host: node.slice(0, colon).replace(/^\[(.*)\]$/, '$1'),
      port: Number(node.slice(colon + 1)),
    };
  });
}

function decodeKey(value: string): Buffer {
  return /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
}

/**
 * Reads `.env` (when present) into process.env, validates, and returns the typed config.
 * Outside production a missing SECRETS_KEY or OPERATOR_TOKEN is generated once into `.env`
 * so that a newcomer's first run works; in production both are required.
 */
export function loadConfig(options: { envFile?: string; env?: NodeJS.ProcessEnv } = {}): AppConfig {
  const env = options.env ?? process.env;
  const envFile = options.envFile ?? resolve(process.cwd(), '.env');
  if (env === process.env && existsSync(envFile)) process.loadEnvFile(envFile);

  const nodeEnv = env.NODE_ENV ?? 'development';
  if (nodeEnv === 'development') {
    const generated: string[] = [];
    if (!env.SECRETS_KEY) {
      env.SECRETS_KEY = randomBytes(32).toString('base64');
      generated.push(`SECRETS_KEY=${env.SECRETS_KEY}`);
    }
    if (!env.OPERATOR_TOKEN) {
      env.OPERATOR_TOKEN = `op_${randomBytes(24).toString('base64url')}`;
      generated.push(`OPERATOR_TOKEN=${env.OPERATOR_TOKEN}`);
    }
    if (generated.length && env === process.env) {
      appendFileSync(
        envFile,
        `# generated for development on first run\n${generated.join('\n')}\n`,
        { mode: 0o600 },
      );
    }
  } else if (nodeEnv === 'test') {
    // Tests get fixed, throwaway values unless they set their own.
    env.SECRETS_KEY ??= Buffer.alloc(32, 7).toString('base64');
    env.OPERATOR_TOKEN ??= 'op_test_operator_token_0123456789abcdef';
  }
  return new AppConfig(validateEnv(env as Record<string, string | undefined>));
}

import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateIf,
  validateSync,
} from 'class-validator';

const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === ''
    ? undefined
    : ['1', 'true', 'yes', 'on'].includes(String(value).toLowerCase());
const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : Number(value);

const isProd = (o: EnvVars) => o.NODE_ENV === 'production';

/** The environment variables the service reads, with their rules. Validated once at boot. */
export class EnvVars {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: 'development' | 'test' | 'production' = 'development';

  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL = 'postgres://postgres:postgres@localhost:5432/offers';

  /**
   * A session to PostgreSQL itself when DATABASE_URL is a pooler in transaction mode: migrations
   * (a session advisory lock) and LISTEN use it. Unset: DATABASE_URL is a direct connection.
   */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_DIRECT_URL must be a postgres:// URL' })
  DATABASE_DIRECT_URL?: string;

  /** A read replica for the reporting lists and the funnel only (never money or lookups). */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_REPLICA_URL must be a postgres:// URL' })
  DATABASE_REPLICA_URL?: string;

  /** One Redis (a primary with failover behind one address included). Ignored when REDIS_CLUSTER_NODES is set. */
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL = 'redis://localhost:6379';

  /**
   * A Redis Cluster instead of one Redis: some of its nodes as host:port,host:port,… (the client
   * learns the others from them). When set, every connection goes to the cluster and REDIS_URL is
   * ignored.
   */
  @IsOptional()
  @Matches(/^[^\s,/]+:\d{1,5}(,[^\s,/]+:\d{1,5})*$/, {
    message: 'REDIS_CLUSTER_NODES must be host:port,host:port,…',
  })
  REDIS_CLUSTER_NODES?: string;

  /** The cluster's ACL user (REDIS_URL carries its own in the URL). */
  @IsOptional()
  @IsString()
  REDIS_CLUSTER_USERNAME?: string;

  /** The cluster user's password. */
  @IsOptional()
  @IsString()
  REDIS_CLUSTER_PASSWORD?: string;

  /** TLS to every node of the cluster (the CA as for REDIS_URL: NODE_EXTRA_CA_CERTS). */
  @Transform(toBool)
  @IsBoolean()
  REDIS_CLUSTER_TLS = false;

  @Transform(toInt)
  @IsInt({ message: 'PORT must be an integer' })
  @Min(0)
  @Max(65535)
  PORT = 3000;

  /** 32 bytes as base64 (44 characters) or hex (64 characters). Encrypts webhook secrets, MACs cursors. */
  @ValidateIf((o: EnvVars) => isProd(o) || o.SECRETS_KEY !== undefined)
  @Matches(/^([A-Za-z0-9+/]{43}=|[0-9a-fA-F]{64})$/, {
    message:
      'SECRETS_KEY must be 32 bytes written as base64 (44 characters) or hex (64 characters)',
  })
  SECRETS_KEY?: string;

  @ValidateIf((o: EnvVars) => isProd(o) || o.OPERATOR_TOKEN !== undefined)
  @IsString()
  @Matches(/^\S{32,}$/, { message: 'OPERATOR_TOKEN must be at least 32 characters without spaces' })
  OPERATOR_TOKEN?: string;

  @Transform(toBool)
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE_URLS = false;

  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_RETRY_BASE_MS must be an integer number of milliseconds' })
  @Min(1)
  WEBHOOK_RETRY_BASE_MS = 30_000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  WEBHOOK_TIMEOUT_MS = 10_000;

  /** Webhook attempts in flight at once per worker process (I/O-bound: receivers may take seconds). */
  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_CONCURRENCY must be an integer' })
  @Min(1)
  @Max(1000)
  WEBHOOK_CONCURRENCY = 100;

  /** How often the worker's webhook relay looks for deliveries committed but not queued. */
  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_RELAY_INTERVAL_MS must be an integer number of milliseconds' })
  @Min(50)
  WEBHOOK_RELAY_INTERVAL_MS = 1_000;

  /** A pending delivery whose next attempt is this late (its job lost with Redis) is re-enqueued. */
  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_STUCK_AFTER_MS must be an integer number of milliseconds' })
  @Min(100)
  WEBHOOK_STUCK_AFTER_MS = 60_000;

  /**
   * An attempt's lease is WEBHOOK_TIMEOUT_MS plus this: time to record the outcome. A lease that
   * ran out without an outcome is taken over (its worker is presumed dead).
   */
  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_LEASE_GRACE_MS must be an integer number of milliseconds' })
  @Min(100)
  WEBHOOK_LEASE_GRACE_MS = 15_000;

  /** Deliveries a bulk replay redelivers per second (per institution). */
  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_REPLAY_RATE_PER_S must be an integer' })
  @Min(1)
  @Max(1000)
  WEBHOOK_REPLAY_RATE_PER_S = 20;

  /** A URL whose every attempt failed for this many days is paused (deliveries wait). */
  @Transform(toInt)
  @IsNumber({}, { message: 'WEBHOOK_DISABLE_AFTER_DAYS must be a number of days' })
  @Min(0.00001)
  WEBHOOK_DISABLE_AFTER_DAYS = 3;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_DEFAULT_PER_MINUTE = 6_000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_REPORTING_PER_MINUTE = 60;

  /** Widget API requests per cardholder session per minute (a page render needs one or two). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  WIDGET_RATE_LIMIT_PER_MINUTE = 120;

  @Transform(toBool)
  @IsBoolean()
  MIGRATIONS_RUN_ON_BOOT = true;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** `pretty` (human lines) or `json`; unset: pretty in development, JSON otherwise. */
  @IsOptional()
  @IsIn(['pretty', 'json', ''], { message: 'LOG_FORMAT must be pretty or json' })
  LOG_FORMAT?: 'pretty' | 'json' | '';

  /** Express "trust proxy" setting: which proxies may set X-Forwarded-*. Empty = trust none. */
  @IsOptional()
  @IsString()
  TRUST_PROXY?: string;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  SESSION_TTL_HOURS = 12;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(500)
  WORKER_CONCURRENCY = 8;

  /** BullMQ key prefix: lets several deployments (or test databases) share one Redis. */
  @Matches(/^[A-Za-z0-9_{}-]{1,64}$/, {
    message: 'QUEUE_PREFIX must be 1-64 letters, digits, _, -, { or }',
  })
  QUEUE_PREFIX = 'bull';

  /** Transactions still `received` this long after commit are re-enqueued by the worker's relay. */
  @Transform(toInt)
  @IsInt({ message: 'MATCH_RELAY_GRACE_MS must be an integer number of milliseconds' })
  @Min(100)
  MATCH_RELAY_GRACE_MS = 30_000;

  /** How often the worker's relay looks for transactions committed but never matched. */
  @Transform(toInt)
  @IsInt({ message: 'MATCH_RELAY_INTERVAL_MS must be an integer number of milliseconds' })
  @Min(100)
  MATCH_RELAY_INTERVAL_MS = 5_000;

  /**
   * How often a pending cardholder erasure is tried again while a webhook delivery for the
   * cardholder is pending (docs/privacy.md); the worker's erasure relay runs this often too, at
   * most every 15 s.
   */
  @Transform(toInt)
  @IsInt({ message: 'ERASURE_RETRY_MS must be an integer number of milliseconds' })
  @Min(100)
  ERASURE_RETRY_MS = 60_000;

  /**
   * Maker–checker for offers (docs/offers.md): `required` makes named operators' new offers and
   * money edits wait for an approver; `off` applies them at once. Unset: `required` when
   * NODE_ENV=production, else `off`.
   */
  @IsOptional()
  @IsIn(['required', 'off'], { message: 'OFFER_APPROVAL must be required or off' })
  OFFER_APPROVAL?: 'required' | 'off';

  /** Cron pattern (UTC) of the scheduled settlement run. */
  @Matches(/^\S+( \S+){4,5}$/, {
    message: 'SETTLEMENT_SCHEDULE must be a cron pattern such as "0 * * * *"',
  })
  SETTLEMENT_SCHEDULE = '0 * * * *';

  /** Months of engagement events (the funnel's raw events) kept; older months are dropped whole. */
  @Transform(toInt)
  @IsInt({ message: 'RETENTION_ENGAGEMENT_MONTHS must be an integer number of months' })
  @Min(1)
  @Max(1200)
  RETENTION_ENGAGEMENT_MONTHS = 13;

  /** Days of webhook attempts and of deliveries in a final state kept. */
  @Transform(toInt)
  @IsInt({ message: 'RETENTION_WEBHOOK_DAYS must be an integer number of days' })
  @Min(1)
  @Max(36500)
  RETENTION_WEBHOOK_DAYS = 90;

  /** Months of transactions kept (reported; applied once transactions are partitioned). */
  @Transform(toInt)
  @IsInt({ message: 'RETENTION_TRANSACTIONS_MONTHS must be an integer number of months' })
  @Min(1)
  @Max(1200)
  RETENTION_TRANSACTIONS_MONTHS = 25;

  /** The api's /metrics on its own port (the public port then answers 404 there); unset = on PORT. */
  @Transform(toInt)
  @IsOptional()
  @IsInt({ message: 'METRICS_PORT must be an integer' })
  @Min(1)
  @Max(65535)
  METRICS_PORT?: number;

  /**
   * Bearer token for /metrics on PORT (`Authorization: Bearer <METRICS_TOKEN>`, else 401). In
   * production, /metrics on PORT answers 404 unless METRICS_PORT or METRICS_TOKEN is set.
   */
  @IsOptional()
  @Matches(/^\S{32,}$/, { message: 'METRICS_TOKEN must be at least 32 characters without spaces' })
  METRICS_TOKEN?: string;

  /**
   * A connection whose request headers are not complete this long after it opened is answered 408
   * and closed (silent new connections included). At most HTTP_REQUEST_TIMEOUT_MS.
   */
  @Transform(toInt)
  @IsInt({ message: 'HTTP_HEADERS_TIMEOUT_MS must be an integer number of milliseconds' })
  @Min(100)
  HTTP_HEADERS_TIMEOUT_MS = 10_000;

  /** A request not fully received this long after it started is answered 408 and closed. */
  @Transform(toInt)
  @IsInt({ message: 'HTTP_REQUEST_TIMEOUT_MS must be an integer number of milliseconds' })
  @Min(100)
  HTTP_REQUEST_TIMEOUT_MS = 60_000;

  /**
   * An idle keep-alive connection is closed after this. Keep it above the load balancer's idle
   * timeout (60 s on the usual ones), so the balancer, not the api, closes idle connections.
   */
  @Transform(toInt)
  @IsInt({ message: 'HTTP_KEEP_ALIVE_TIMEOUT_MS must be an integer number of milliseconds' })
  @Min(100)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 65_000;

  /** The worker's own /health and /metrics listener; 0 turns it off. */
  @Transform(toInt)
  @IsInt({ message: 'WORKER_HEALTH_PORT must be an integer' })
  @Min(0)
  @Max(65535)
  WORKER_HEALTH_PORT = 3001;

  @IsOptional()
  @Matches(/^smtps?:\/\/.+/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @IsOptional()
  @IsString()
  SMTP_FROM?: string;

  @IsOptional()
  @IsString()
  PUBLIC_BASE_URL?: string;

  /**
   * Operators' single sign-on (OpenID Connect, authorization code with PKCE): the provider's
   * issuer URL (https; http only on a loopback address, for development and tests). With it,
   * OPERATOR_OIDC_CLIENT_ID and OPERATOR_OIDC_CLIENT_SECRET are required.
   */
  @IsOptional()
  @Matches(/^(https:\/\/\S+|http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/\S*)?)$/, {
    message:
      'OPERATOR_OIDC_ISSUER must be an https:// URL (http:// only on 127.0.0.1, localhost or [::1])',
  })
  OPERATOR_OIDC_ISSUER?: string;

  @ValidateIf((o: EnvVars) => o.OPERATOR_OIDC_ISSUER !== undefined)
  @IsString({ message: 'OPERATOR_OIDC_CLIENT_ID is required with OPERATOR_OIDC_ISSUER' })
  OPERATOR_OIDC_CLIENT_ID?: string;

  @ValidateIf((o: EnvVars) => o.OPERATOR_OIDC_ISSUER !== undefined)
  @IsString({ message: 'OPERATOR_OIDC_CLIENT_SECRET is required with OPERATOR_OIDC_ISSUER' })
  OPERATOR_OIDC_CLIENT_SECRET?: string;

  /** The claim whose value (a string or an array, e.g. groups) names the operator's role. */
  @Matches(/^[A-Za-z0-9_:./-]{1,100}$/, {
    message: 'OPERATOR_OIDC_ROLE_CLAIM must be a claim name (letters, digits, _ : . / -)',
  })
  OPERATOR_OIDC_ROLE_CLAIM = 'roles';

  /** Check every api answer against openapi/openapi.json: `log` or `fail` (tests); `off` in production. */
  @IsIn(['off', 'log', 'fail'], { message: 'OPENAPI_RESPONSE_VALIDATION must be off, log or fail' })
  OPENAPI_RESPONSE_VALIDATION: 'off' | 'log' | 'fail' = 'off';
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Validates raw environment values; throws ConfigError naming every bad variable. */
export function validateEnv(raw: Record<string, string | undefined>): EnvVars {
  const defined = Object.fromEntries(
    Object.entries(raw).filter(([, v]) => v !== undefined && v !== ''),
  );
  const env = plainToInstance(EnvVars, defined, { exposeDefaultValues: true });
  const errors = validateSync(env, { whitelist: false, forbidUnknownValues: false });
  const problems = errors.map((e) =>
    Object.values(e.constraints ?? { invalid: `${e.property} is invalid` }).join('; '),
  );
  if (!problems.length && env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
    // Node refuses a headers timeout above the request timeout.
    problems.push('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  if (!problems.length && env.REDIS_CLUSTER_NODES && /[{}]/.test(env.QUEUE_PREFIX)) {
    // On a cluster each queue's prefix carries the queue's own hash tag; braces here would be the
    // tag of every queue, all on one shard.
    problems.push('QUEUE_PREFIX must not contain { or } when REDIS_CLUSTER_NODES is set');
  }
  if (problems.length) throw new ConfigError(problems);
  return env;
}

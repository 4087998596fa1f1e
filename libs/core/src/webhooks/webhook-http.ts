import http, { IncomingMessage } from 'http';
import https from 'https';
import {
  checkWebhookUrlShape,
  classifyNetworkError,
  describeNetworkError,
  parseRetryAfter,
  WebhookErrorClass,
} from '@app/domain';
import { guardedLookup, Resolver } from './ssrf-guard';

/** First bytes of a response kept in the attempt log. */
export const RESPONSE_EXCERPT_BYTES = 4096;
/** A response body longer than this is not read further (the socket is dropped instead of drained). */
const DRAIN_LIMIT_BYTES = 64 * 1024;

export interface SendResult {
  ok: boolean;
  startedAt: Date;
  durationMs: number;
  httpStatus: number | null;
  errorClass: WebhookErrorClass | null;
  errorMessage: string | null;
  responseExcerpt: string | null;
  retryAfterMs: number | null;
}

export interface WebhookHttpOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  /** Test hook: a stubbed DNS. */
  resolver?: Resolver;
  maxSockets?: number;
  /** Test hook: the CA that signed a local TLS receiver's certificate (instead of the system's). */
  ca?: string;
}

/** A client certificate and key (PEM) for mutual TLS. */
export interface ClientTls {
  cert: string;
  key: string;
}

/**
 * Sends one webhook POST. One deadline covers DNS, connect, TLS, the status line and the (capped)
 * body read: the receiver's time, counted from the moment the request has a connection (a
 * request waiting for a free connection in our agent, after an outage's backlog say, is not the
 * receiver's fault). Redirects are never followed (a 3xx is a failed attempt); only a 2xx is
 * success. The connection's DNS lookup is the SSRF guard's, so the socket connects only to checked
 * addresses. Keep-alive agents reuse connections to the same receiver.
 */
export class WebhookHttpClient {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  /** One agent per client certificate (connections authenticated with it are reused only for it). */
  private readonly tlsAgents = new Map<string, https.Agent>();
  private readonly agentOptions: https.AgentOptions;
  private readonly lookup: ReturnType<typeof guardedLookup>;

  constructor(private readonly options: WebhookHttpOptions) {
    this.lookup = guardedLookup({ allowPrivate: options.allowPrivate, resolver: options.resolver });
    const agentOptions = {
      keepAlive: true,
      maxSockets: options.maxSockets ?? 64,
      maxFreeSockets: 16,
      timeout: 60_000,
      scheduling: 'lifo' as const,
    };
    this.agentOptions = { ...agentOptions, ...(options.ca ? { ca: options.ca } : {}) };
    this.httpAgent = new http.Agent(agentOptions);
    this.httpsAgent = new https.Agent(this.agentOptions);
  }

  private agentFor(tls: ClientTls): https.Agent {
    let agent = this.tlsAgents.get(tls.cert);
    if (!agent) {
      agent = new https.Agent({ ...this.agentOptions, cert: tls.cert, key: tls.key });
      this.tlsAgents.set(tls.cert, agent);
    }
    return agent;
  }

  /**
   * Null when nothing was sent: no connection was free within `waitForConnectionMs` (the request is
   * dropped from the agent's queue, so the caller may give the attempt to another worker).
   */
  async post(
    rawUrl: string,
    body: Buffer,
    headers: Record<string, string>,
    tls?: ClientTls,
    waitForConnectionMs = Infinity,
  ): Promise<SendResult | null> {
    let startedAt = new Date();
    let t0 = performance.now();
    const done = (r: Omit<SendResult, 'startedAt' | 'durationMs'>): SendResult => ({
      ...r,
      startedAt,
      durationMs: Math.max(0, Math.round(performance.now() - t0)),
    });

    const shape = checkWebhookUrlShape(rawUrl, { allowPrivate: this.options.allowPrivate });
    if (!shape.ok) {
      return done({
        ok: false,
        httpStatus: null,
        errorClass: 'blocked_address',
        errorMessage: `URL refused: ${shape.message}`,
        responseExcerpt: null,
        retryAfterMs: null,
      });
    }
    const url = shape.url;
    const isHttps = url.protocol === 'https:';

    return new Promise<SendResult | null>((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      let queued: NodeJS.Timeout | undefined;
      const finish = (r: Omit<SendResult, 'startedAt' | 'durationMs'> | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(queued);
        resolve(r && done(r));
      };
      const fail = (err: NodeJS.ErrnoException) =>
        finish({
          ok: false,
          httpStatus: null,
          errorClass: classifyNetworkError(err),
          errorMessage: describeNetworkError(err),
          responseExcerpt: null,
          retryAfterMs: null,
        });

      const req = (isHttps ? https : http).request({
        protocol: url.protocol,
        hostname: shape.hostname,
        port: url.port || (isHttps ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          ...headers,
          'Content-Type': 'application/json',
          'Content-Length': String(body.length),
        },
        agent: isHttps ? (tls ? this.agentFor(tls) : this.httpsAgent) : this.httpAgent,
        lookup: this.lookup as never,
        ...(isHttps ? { servername: shape.ipLiteral ? undefined : shape.hostname } : {}),
      });

      // Before the status line, the deadline is a timeout; after it, the status decides (a 2xx
      // whose body stalls was still answered in time).
      let onDeadline = () =>
        fail(
          Object.assign(new Error(`no response within ${this.options.timeoutMs} ms`), {
            code: 'WEBHOOK_TIMEOUT',
          }),
        );
      const connected = () => {
        clearTimeout(queued);
        startedAt = new Date();
        t0 = performance.now();
        timer = setTimeout(() => {
          onDeadline();
          req.destroy();
        }, this.options.timeoutMs);
      };
      req.once('socket', connected);
      if (Number.isFinite(waitForConnectionMs))
        queued = setTimeout(
          () => {
            if (timer) return; // connected meanwhile
            finish(null);
            req.destroy();
          },
          Math.max(0, waitForConnectionMs),
        );

      req.on('error', fail);
      req.on('response', (res: IncomingMessage) => {
        onDeadline = this.readResponse(res, finish);
      });
      req.end(body);
    });
  }

  /** Reads the capped body; returns the function that completes the attempt with what was read. */
  private readResponse(
    res: IncomingMessage,
    finish: (r: Omit<SendResult, 'startedAt' | 'durationMs'>) => void,
  ): () => void {
    const status = res.statusCode ?? 0;
    const chunks: Buffer[] = [];
    let kept = 0;
    let seen = 0;
    const complete = () => {
      const excerpt = chunks.length
        ? Buffer.concat(chunks)
            .toString('utf8')
            .replace(/\u0000/g, '')
        : null;
      const ok = status >= 200 && status < 300;
      let errorMessage: string | null = null;
      if (!ok) {
        errorMessage =
          status >= 300 && status < 400
            ? `HTTP ${status}: redirect not followed${res.headers.location ? ` (Location: ${String(res.headers.location).slice(0, 300)})` : ''}`
            : `HTTP ${status}`;
      }
      finish({
        ok,
        httpStatus: status,
        errorClass: ok ? null : 'http_status',
        errorMessage,
        responseExcerpt: excerpt,
        retryAfterMs: parseRetryAfter(res.headers['retry-after'], Date.now()),
      });
    };
    res.on('data', (c: Buffer) => {
      seen += c.length;
      if (kept < RESPONSE_EXCERPT_BYTES) {
        const part = c.subarray(0, RESPONSE_EXCERPT_BYTES - kept);
        chunks.push(part);
        kept += part.length;
      }
      if (seen > DRAIN_LIMIT_BYTES) {
        res.destroy();
        complete();
      }
    });
    res.on('end', complete);
    // A receiver that sent its status but then stalls or drops the body: the status decides.
    res.on('error', complete);
    res.on('aborted', complete);
    return complete;
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
    for (const a of this.tlsAgents.values()) a.destroy();
    this.tlsAgents.clear();
  }
}

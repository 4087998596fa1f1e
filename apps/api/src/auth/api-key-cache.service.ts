import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { PgListener } from '@app/db';
import { ApiKeysRepository, KeyAuthRow } from './api-keys.repository';

/** Channel the auth_changed triggers notify (migration 1763800500000). */
export const AUTH_CHANGED_CHANNEL = 'auth_changed';
/** How long a key row is served from memory at most (every change empties the cache sooner). */
export const KEY_CACHE_TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;
/** How long a change made by this process waits for its own notification before answering. */
const OWN_NOTIFY_WAIT_MS = 2_000;

interface Entry {
  row: KeyAuthRow;
  at: number;
}

/**
 * The API-key rows authentication reads, kept in memory for KEY_CACHE_TTL_MS so a request makes no
 * PostgreSQL round trip for its key. Revocation stays immediate: triggers on api_key and
 * institution notify `auth_changed` at commit, and every api process empties its cache on the
 * notification. The cache is used only while the LISTEN connection is up; without it every
 * request reads its key from the database, as before. A read that started before a change is not
 * cached (generation check), so a notification can never be overtaken by an older row.
 */
@Injectable()
export class ApiKeyCache implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ApiKeyCache.name);
  private readonly entries = new Map<string, Entry>();
  private generation = 0;
  private readonly listener: PgListener;
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(
    private readonly repo: ApiKeysRepository,
    config: AppConfig,
  ) {
    this.listener = new PgListener({
      databaseUrl: config.databaseDirectUrl, // LISTEN needs a session
      channel: AUTH_CHANGED_CHANNEL,
      onNotification: (subject) => {
        this.drop();
        for (const wake of this.waiters.get(subject) ?? []) wake();
      },
      onListening: () => this.drop(), // rows read while not listening may predate a change
      onLost: (err) => {
        this.drop();
        if (err)
          this.logger.warn(
            { err: err.message },
            'api key cache off: cannot listen for key changes; reading keys from the database',
          );
      },
    });
  }

  /** The cache is used only while the LISTEN connection is up. */
  private get listening(): boolean {
    return this.listener.listening;
  }

  onApplicationBootstrap(): Promise<void> {
    return this.listener.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.drop();
    await this.listener.stop();
  }

  /** The key row for a SHA-256 key hash, from memory when fresh, else from PostgreSQL. */
  async find(keyHash: string, now = Date.now()): Promise<KeyAuthRow | undefined> {
    if (this.listening) {
      const hit = this.entries.get(keyHash);
      if (hit && now - hit.at < KEY_CACHE_TTL_MS) return hit.row;
    }
    const generation = this.generation;
    const row = await this.repo.findForAuth(keyHash);
    if (row && this.listening && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(keyHash, { row, at: now });
    }
    return row;
  }

  /**
   * Runs a change of keys or institutions (`subject`: `key:<id>` or `institution:<id>`, the
   * trigger's payload) and answers only once this process has its own notification back, so the
   * change is in force here when the caller hears of it; every other api process gets the same
   * notification from PostgreSQL at the same commit.
   */
  async change<T>(subject: string, fn: () => Promise<T>): Promise<T> {
    if (!this.listening) return fn();
    let resolve!: () => void;
    const seen = new Promise<void>((r) => (resolve = r));
    const set = this.waiters.get(subject) ?? new Set();
    set.add(resolve);
    this.waiters.set(subject, set);
    try {
      const result = await fn();
      this.drop();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        seen,
        new Promise<void>((r) => (timer = setTimeout(r, OWN_NOTIFY_WAIT_MS))),
      ]);
      clearTimeout(timer);
      return result;
    } finally {
      set.delete(resolve);
      if (!set.size) this.waiters.delete(subject);
    }
  }

  /** Forgets every cached row (and any read under way). */
  private drop(): void {
    this.generation++;
    this.entries.clear();
  }
}

import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { Cluster, Redis } from 'ioredis';
import { AppConfig } from '@app/config';
import { createRedis, RedisClient } from '@app/queue';

const SCAN_COUNT = 500;

/** One replacement: a text and what takes its place. */
export interface TextReplacement {
  from: string;
  to: string;
}

const rewrite = (value: string, forms: TextReplacement[]) =>
  forms.reduce((v, f) => v.split(f.from).join(f.to), value);
const holdsAny = (value: string, forms: TextReplacement[]) =>
  forms.some((f) => value.includes(f.from));

/**
 * Job data in Redis (docs/privacy.md): the queues' keys under QUEUE_PREFIX are searched for the
 * token and it is replaced where BullMQ keeps text (a job's hash: data, options, return value,
 * failure reason, stack trace; a job's log list). An event stream's entries cannot be edited: one
 * that quotes the token is deleted. Job payloads never carry a token by design; this reaches what
 * a failure message or a log line may have quoted. Redis is scanned in batches of keys, each
 * batch's reads and writes pipelined.
 */
@Injectable()
export class RedisJobScrubber implements OnModuleDestroy {
  private redis?: RedisClient;

  constructor(private readonly config: AppConfig) {}

  /** The servers to scan: the one Redis, or each master of a Redis Cluster (SCAN is per node). */
  private async nodes(): Promise<Redis[]> {
    // Commands wait for the connection (a worker's first erasure may come before it is up); each
    // fails after one retry while Redis is down, and the erasure's transaction with it.
    this.redis ??= createRedis(this.config.redis, 'fast', { enableOfflineQueue: true });
    if (!(this.redis instanceof Cluster)) return [this.redis];
    if (this.redis.status !== 'ready')
      await new Promise<void>((resolve, reject) => {
        this.redis!.once('ready', resolve);
        this.redis!.once('error', reject);
      });
    return (this.redis as Cluster).nodes('master');
  }

  /** Replaces the forms in every job key of the queues; answers how many keys changed. */
  async scrub(forms: TextReplacement[]): Promise<number> {
    let changed = 0;
    for (const redis of await this.nodes()) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(
          cursor,
          'MATCH',
          `${this.config.queuePrefix}:*`,
          'COUNT',
          SCAN_COUNT,
        );
        cursor = next;
        if (keys.length) changed += await this.scrubKeys(redis, keys, forms);
      } while (cursor !== '0');
    }
    return changed;
  }

  private async scrubKeys(redis: Redis, keys: string[], forms: TextReplacement[]) {
    const types = (await redis.pipeline(keys.map((k) => ['type', k])).exec()) ?? [];
    const read = redis.pipeline();
    const kinds: { key: string; type: string }[] = [];
    keys.forEach((key, i) => {
      const type = types[i]?.[1] as string;
      if (type === 'hash') read.hgetall(key);
      else if (type === 'list') read.lrange(key, 0, -1);
      else if (type === 'stream') read.xrange(key, '-', '+');
      else if (type === 'string') read.get(key);
      else return;
      kinds.push({ key, type });
    });
    if (!kinds.length) return 0;
    const values = (await read.exec()) ?? [];
    const write = redis.pipeline();
    let changed = 0;
    kinds.forEach(({ key, type }, i) => {
      const value = values[i]?.[1];
      if (value == null) return;
      let touched = false;
      if (type === 'hash') {
        for (const [field, v] of Object.entries(value as Record<string, string>)) {
          if (!holdsAny(v, forms)) continue;
          write.hset(key, field, rewrite(v, forms));
          touched = true;
        }
      } else if (type === 'list') {
        (value as string[]).forEach((v, index) => {
          if (!holdsAny(v, forms)) return;
          write.lset(key, index, rewrite(v, forms));
          touched = true;
        });
      } else if (type === 'stream') {
        for (const [id, fields] of value as [string, string[]][]) {
          if (!fields.some((f) => holdsAny(f, forms))) continue;
          write.xdel(key, id);
          touched = true;
        }
      } else if (holdsAny(value as string, forms)) {
        write.set(key, rewrite(value as string, forms), 'KEEPTTL');
        touched = true;
      }
      if (touched) changed++;
    });
    if (changed) {
      const results = (await write.exec()) ?? [];
      const failed = results.find(([err]) => err);
      if (failed) throw failed[0]!;
    }
    return changed;
  }

  onModuleDestroy(): void {
    this.redis?.disconnect();
  }
}

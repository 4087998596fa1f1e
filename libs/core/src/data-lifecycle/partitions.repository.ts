import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { KeptPartition } from '@app/db';
import type { Partition, PartitionedTable } from '@app/domain';

/** How long partition DDL waits for its lock before giving up until the next run. */
const DDL_LOCK_TIMEOUT = '5s';

/** The columns a move carries from the old table to the partitioned one, per table. */
const MOVED_COLUMNS: Record<PartitionedTable, string> = {
  engagement_event: 'id, institution_id, kind, cardholder_token, offer_id, occurred_at',
};

/** The old table of a partitioned one, renamed aside by its migration until its rows have moved. */
export const unpartitionedName = (table: PartitionedTable) => `${table}_unpartitioned`;

/** Names go into DDL: only plain lower-case identifiers (ours) pass. */
function ident(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain identifier: ${name}`);
  return name;
}

/** A drop that did not happen, and why. */
export type DropOutcome = { dropped: true } | { dropped: false; kept: KeptPartition };

/**
 * The statements of partition upkeep, retention and the move command (docs/retention.md): the
 * catalog's partitions, their DDL, the hourly run's record, legal holds.
 */
@Injectable()
export class PartitionsRepository {
  constructor(private readonly db: DataSource) {}

  /** Whether `table` exists and is partitioned. */
  async isPartitioned(table: string): Promise<boolean> {
    const [row] = await this.db.query<{ p: boolean }[]>(
      `SELECT relkind = 'p' AS p FROM pg_class WHERE oid = to_regclass($1)`,
      [table],
    );
    return !!row?.p;
  }

  /** The partitions of `table` with their range, oldest first (none when not partitioned). */
  async list(table: string): Promise<Partition[]> {
    // The bound prints in the session's time zone with its offset: read back, it is the instant.
    const rows = await this.db.query<{ name: string; from: Date; to: Date }[]>(
      `SELECT c.relname AS name, b[1]::timestamptz AS "from", b[2]::timestamptz AS "to"
         FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid
        CROSS JOIN LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                        'FROM \\(''([^'']+)''\\) TO \\(''([^'']+)''\\)') b
        WHERE i.inhparent = to_regclass($1)
        ORDER BY 2`,
      [table],
    );
    return rows.map((r) => ({ name: r.name, from: new Date(r.from), to: new Date(r.to) }));
  }

  /** Creates the partition unless it exists: true when this call created it. */
  async create(table: string, p: Partition): Promise<boolean> {
    return this.db.transaction(async (m) => {
      await m.query(`SELECT set_config('lock_timeout', $1, true)`, [DDL_LOCK_TIMEOUT]);
      const [exists] = await m.query<{ e: boolean }[]>(`SELECT to_regclass($1) IS NOT NULL AS e`, [
        p.name,
      ]);
      if (exists.e) return false;
      await m.query(
        `CREATE TABLE IF NOT EXISTS ${ident(p.name)} PARTITION OF ${ident(table)}
           FOR VALUES FROM ('${p.from.toISOString()}') TO ('${p.to.toISOString()}')
           WITH (parallel_workers = 0)`,
      );
      return true;
    });
  }

  /**
   * Drops a partition past retention unless an institution under legal hold has rows in it, in
   * one transaction: legal_hold is locked against new holds meanwhile, so a hold placed before
   * the drop commits is seen. A lock not granted in time keeps the partition until the next run.
   */
  async dropUnlessHeld(p: Partition): Promise<DropOutcome> {
    try {
      return await this.db.transaction(async (m): Promise<DropOutcome> => {
        await m.query(`SELECT set_config('lock_timeout', $1, true)`, [DDL_LOCK_TIMEOUT]);
        await m.query(`LOCK TABLE legal_hold IN SHARE MODE`);
        const held = await m.query<{ institution_id: string }[]>(
          `SELECT h.institution_id FROM legal_hold h
            WHERE EXISTS (SELECT 1 FROM ${ident(p.name)} x WHERE x.institution_id = h.institution_id)
            ORDER BY 1`,
        );
        if (held.length)
          return {
            dropped: false,
            kept: {
              partition: p.name,
              reason: 'legal_hold',
              institutions: held.map((h) => h.institution_id),
            },
          };
        await m.query(`DROP TABLE ${ident(p.name)}`);
        return { dropped: true };
      });
    } catch (e) {
      if ((e as { code?: string }).code !== '55P03') throw e; // lock_not_available
      return { dropped: false, kept: { partition: p.name, reason: 'locked' } };
    }
  }

  /** Takes the run of `tick` (an hour): false when another worker has taken it. */
  async claimRun(tick: Date): Promise<boolean> {
    const rows = await this.db.query<unknown[]>(
      `INSERT INTO data_lifecycle_run (tick) VALUES ($1) ON CONFLICT DO NOTHING RETURNING tick`,
      [tick],
    );
    return rows.length > 0;
  }

  /** Records what a run did (a run not claimed through claimRun is recorded under its tick too). */
  async recordRun(
    tick: Date,
    r: { created: string[]; dropped: string[]; kept: KeptPartition[]; error: string | null },
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO data_lifecycle_run AS x (tick, finished_at, created_partitions, dropped_partitions, kept, error)
       VALUES ($1, now(), $2, $3, $4, $5)
       ON CONFLICT (tick) DO UPDATE SET finished_at = now(),
         created_partitions = x.created_partitions || EXCLUDED.created_partitions,
         dropped_partitions = x.dropped_partitions || EXCLUDED.dropped_partitions,
         kept = EXCLUDED.kept, error = EXCLUDED.error`,
      [tick, r.created, r.dropped, JSON.stringify(r.kept), r.error],
    );
  }

  // ------------------------------------------------------------------ the move command

  /** Whether the old table of `table` is still there (rows left to move). */
  async hasUnpartitioned(table: PartitionedTable): Promise<boolean> {
    const [row] = await this.db.query<{ e: boolean }[]>(`SELECT to_regclass($1) IS NOT NULL AS e`, [
      unpartitionedName(table),
    ]);
    return row.e;
  }

  /** The old table's rows left and the range of their partition key (one scan). */
  async unpartitionedRange(
    table: PartitionedTable,
    key: string,
  ): Promise<{ rows: number; first: Date | null; last: Date | null }> {
    const [r] = await this.db.query<{ rows: string; first: Date | null; last: Date | null }[]>(
      `SELECT count(*) AS rows, min(${ident(key)}) AS first, max(${ident(key)}) AS last
         FROM ${ident(unpartitionedName(table))}`,
    );
    return { rows: Number(r.rows), first: r.first, last: r.last };
  }

  /**
   * Moves up to `limit` rows, newest first, from the old table into the partitioned one in one
   * statement (deleted there and inserted here in the same transaction: never lost, never in
   * both). Rows another mover holds are skipped. The funnel rollups are not counted again
   * (offers.partition_move, read by the engagement_rollup trigger's WHEN).
   */
  async moveBatch(table: PartitionedTable, limit: number): Promise<number> {
    const old = ident(unpartitionedName(table));
    const columns = MOVED_COLUMNS[table];
    return this.db.transaction(async (m: EntityManager) => {
      await m.query(`SELECT set_config('offers.partition_move', 'on', true)`);
      const [{ moved }] = await m.query<{ moved: number }[]>(
        `WITH batch AS (
           DELETE FROM ${old} WHERE id IN (SELECT id FROM ${old} ORDER BY id DESC LIMIT $1 FOR UPDATE SKIP LOCKED)
           RETURNING ${columns}),
         ins AS (
           INSERT INTO ${ident(table)} (${columns}) OVERRIDING SYSTEM VALUE SELECT ${columns} FROM batch
           RETURNING 1)
         SELECT count(*)::int AS moved FROM ins`,
        [limit],
      );
      return moved;
    });
  }

  /** Drops the old table once it is empty: true when dropped (or already gone). */
  async dropUnpartitionedIfEmpty(table: PartitionedTable): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const name = unpartitionedName(table);
      const [row] = await m.query<{ e: boolean }[]>(`SELECT to_regclass($1) IS NOT NULL AS e`, [
        name,
      ]);
      if (!row.e) return true;
      await m.query(`LOCK TABLE ${ident(name)} IN ACCESS EXCLUSIVE MODE`);
      const left = await m.query<unknown[]>(`SELECT 1 FROM ${ident(name)} LIMIT 1`);
      if (left.length) return false;
      await m.query(`DROP TABLE ${ident(name)}`);
      return true;
    });
  }
}

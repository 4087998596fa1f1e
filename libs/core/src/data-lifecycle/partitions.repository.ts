import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { KeptPartition } from '@app/db';
import {
  followersOf,
  type Partition,
  type PartitionedTable,
  PARTITIONED_TABLES,
} from '@app/domain';

/** How long partition DDL waits for its lock before giving up until the next run. */
const DDL_LOCK_TIMEOUT = '5s';

const ENGAGEMENT_COLUMNS = 'id, institution_id, kind, cardholder_token, offer_id, occurred_at';

/**
 * One batch of the move, per table ($1: the batch size; answers `moved`). Webhook deliveries move
 * with their attempts in one statement (webhook_delivery_move(), defined by the migration that
 * partitioned them); webhook_attempt has no move of its own.
 */
const MOVE_SQL: Partial<Record<PartitionedTable, (old: string) => string>> = {
  engagement_event: (old) => `
    WITH batch AS (
      DELETE FROM ${old} WHERE id IN (SELECT id FROM ${old} ORDER BY id DESC LIMIT $1 FOR UPDATE SKIP LOCKED)
      RETURNING ${ENGAGEMENT_COLUMNS}),
    ins AS (
      INSERT INTO engagement_event (${ENGAGEMENT_COLUMNS}) OVERRIDING SYSTEM VALUE SELECT ${ENGAGEMENT_COLUMNS} FROM batch
      RETURNING 1)
    SELECT count(*)::int AS moved FROM ins`,
  webhook_delivery: () => `SELECT webhook_delivery_move($1, false) AS moved`,
};

/** The columns the copy of a copied table carries (transaction: copyBatch, finishCopy). */
const COPIED_COLUMNS: Partial<Record<PartitionedTable, string>> = {
  transaction: `id, institution_id, transaction_ref, cardholder_token, instrument_token, instrument_type,
    merchant_identifier, merchant_identifier_type, merchant_id, mcc, merchant_descriptor, network, amount,
    currency, transacted_at, received_at, source, kind, original_transaction_ref, status, processed_at, channel,
    match_error, match_failed_at, history`,
};

/** What else goes when a table's old copy is dropped (its followers' old copies, the move function). */
const DROPPED_WITH_OLD: Partial<Record<PartitionedTable, string>> = {
  webhook_delivery:
    'DROP TABLE IF EXISTS webhook_attempt_unpartitioned; DROP FUNCTION IF EXISTS webhook_delivery_move(integer, boolean)',
};

/**
 * Rows that keep their partition past retention, per table: a month holding a delivery still
 * pending is kept (docs/retention.md), found through the pending partial index.
 */
const KEEP_WHILE: Partial<Record<PartitionedTable, { where: string; reason: 'pending_delivery' }>> =
  {
    webhook_delivery: { where: `status = 'pending'`, reason: 'pending_delivery' },
  };

/** The old table of a partitioned one, renamed aside by its migration until its rows have moved. */
export const unpartitionedName = (table: PartitionedTable) => `${table}_unpartitioned`;

/**
 * The partitioned copy of a table whose rows are copied before it takes the table's name (the
 * old table stays live meanwhile: transaction, docs/retention.md).
 */
export const copyName = (table: PartitionedTable) => `${table}_partitioned`;

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
      // (A copy being filled by the partition move takes its table's settings.)
      const spec = PARTITIONED_TABLES.find((t) => table === t.table || table === copyName(t.table));
      const options = [
        ...(spec?.parallel ? [] : ['parallel_workers = 0']),
        ...(spec?.fillfactor ? [`fillfactor = ${spec.fillfactor}`] : []),
      ];
      await m.query(
        `CREATE TABLE IF NOT EXISTS ${ident(p.name)} PARTITION OF ${ident(table)}
           FOR VALUES FROM ('${p.from.toISOString()}') TO ('${p.to.toISOString()}')
           ${options.length ? `WITH (${options.join(', ')})` : ''}`,
      );
      return true;
    });
  }

  /**
   * Drops a partition past retention, with its followers' partitions of the same month, unless an
   * institution under legal hold has rows in any of them or a row of it must stay (a pending
   * delivery: KEEP_WHILE), in one transaction: legal_hold is locked against new holds meanwhile, so a hold placed before
   * the drop commits is seen. The parent tables are locked before the months, in the order every
   * writer takes them. A lock not granted in time keeps the partition until the next run.
   */
  async dropUnlessHeld(
    table: PartitionedTable,
    p: Partition,
    followers: Partition[] = [],
  ): Promise<DropOutcome> {
    try {
      return await this.db.transaction(async (m): Promise<DropOutcome> => {
        await m.query(`SELECT set_config('lock_timeout', $1, true)`, [DDL_LOCK_TIMEOUT]);
        await m.query(`LOCK TABLE legal_hold IN SHARE MODE`);
        // The parent tables before any month: dropping a partition locks its parent ACCESS
        // EXCLUSIVE, and every writer takes the parent before the month; taken last, after the
        // month, it deadlocked with the webhook relay and processor (each holding the parent and
        // waiting for the month). ONLY: the parent alone, as queries reach the months through it.
        await m.query(
          `LOCK TABLE ONLY ${[table, ...followersOf(table)].map(ident).join(', ')} IN ACCESS EXCLUSIVE MODE`,
        );
        // The followers' months that exist (their rows are held the same way).
        const [{ names }] = await m.query<{ names: string[] }[]>(
          `SELECT COALESCE(array_agg(n), '{}') AS names FROM unnest($1::text[]) n WHERE to_regclass(n) IS NOT NULL`,
          [followers.map((f) => f.name)],
        );
        const all = [p.name, ...names].map(ident);
        const held = await m.query<{ institution_id: string }[]>(
          `SELECT h.institution_id FROM legal_hold h
            WHERE ${all.map((t) => `EXISTS (SELECT 1 FROM ${t} x WHERE x.institution_id = h.institution_id)`).join(' OR ')}
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
        const keep = KEEP_WHILE[table];
        if (keep) {
          // Locked first, so no row turns pending (a redelivery) between the probe and the drop.
          await m.query(`LOCK TABLE ${ident(p.name)} IN ACCESS EXCLUSIVE MODE`);
          const rows = await m.query<unknown[]>(
            `SELECT 1 FROM ${ident(p.name)} WHERE ${keep.where} LIMIT 1`,
          );
          if (rows.length)
            return { dropped: false, kept: { partition: p.name, reason: keep.reason } };
        }
        // Followers first: nothing refers to them.
        await m.query(`DROP TABLE ${[...all.slice(1), all[0]].join(', ')}`);
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
    const sql = MOVE_SQL[table];
    if (!sql) return 0; // moved with the table it follows
    return this.db.transaction(async (m: EntityManager) => {
      await m.query(`SELECT set_config('offers.partition_move', 'on', true)`);
      const [{ moved }] = await m.query<{ moved: number }[]>(sql(ident(unpartitionedName(table))), [
        limit,
      ]);
      return moved;
    });
  }

  // ------------------------------------------------------------------ copy, then switch

  /** Whether `table` still has a partitioned copy waiting for its rows (the old table is live). */
  async hasCopy(table: PartitionedTable): Promise<boolean> {
    const [row] = await this.db.query<{ e: boolean }[]>(`SELECT to_regclass($1) IS NOT NULL AS e`, [
      copyName(table),
    ]);
    return row.e;
  }

  /** The live (old) table's rows and the range of their partition key (one scan). */
  async liveRange(
    table: PartitionedTable,
    key: string,
  ): Promise<{ rows: number; first: Date | null; last: Date | null }> {
    const [r] = await this.db.query<{ rows: string; first: Date | null; last: Date | null }[]>(
      `SELECT count(*) AS rows, min(${ident(key)}) AS first, max(${ident(key)}) AS last FROM ${ident(table)}`,
    );
    return { rows: Number(r.rows), first: r.first, last: r.last };
  }

  /**
   * Copies up to `limit` rows of the live table after id `after` (its primary key's order) into
   * the partitioned copy, each locked FOR SHARE while copied: an update running meanwhile waits,
   * then its trigger updates the copy; one that committed before is read as it is now. Rows the
   * triggers already copied are skipped (ON CONFLICT DO NOTHING). Answers the last id read (null
   * when none is left) and the rows copied.
   */
  async copyBatch(
    table: PartitionedTable,
    after: string | null,
    limit: number,
  ): Promise<{ last: string | null; copied: number }> {
    const columns = COPIED_COLUMNS[table]!;
    const [r] = await this.db.query<{ last: string | null; copied: number }[]>(
      `WITH b AS (
         SELECT ${columns} FROM ${ident(table)}
          WHERE $1::uuid IS NULL OR id > $1::uuid ORDER BY id LIMIT $2 FOR SHARE),
       ins AS (
         INSERT INTO ${ident(copyName(table))} (${columns}) SELECT ${columns} FROM b
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT (SELECT id FROM b ORDER BY id DESC LIMIT 1)::text AS last,
              (SELECT count(*)::int FROM ins) AS copied`,
      [after, limit],
    );
    return r;
  }

  /**
   * The switch (the migration's transaction_partition_switch): the old table aside, the copy
   * under the table's name. Its exclusive lock waits at most 5 s (false: try again).
   */
  async switchCopy(): Promise<boolean> {
    try {
      return await this.db.transaction(async (m) => {
        await m.query(`SELECT set_config('lock_timeout', $1, true)`, [DDL_LOCK_TIMEOUT]);
        const [r] = await m.query<{ s: boolean }[]>(`SELECT transaction_partition_switch() AS s`);
        return r.s;
      });
    } catch (e) {
      if ((e as { code?: string }).code !== '55P03') throw e; // lock_not_available
      return false;
    }
  }

  /**
   * After the switch: copies any row of the old table that has no copy (none when the triggers and
   * the batches did their work; answered), then drops the old table.
   */
  async finishCopy(table: PartitionedTable): Promise<number> {
    const old = ident(unpartitionedName(table));
    const columns = COPIED_COLUMNS[table]!;
    return this.db.transaction(async (m) => {
      const [{ n }] = await m.query<{ n: number }[]>(
        `WITH ins AS (
           INSERT INTO ${ident(table)} (${columns}) SELECT ${columns} FROM ${old}
           ON CONFLICT DO NOTHING RETURNING 1)
         SELECT count(*)::int AS n FROM ins`,
      );
      await m.query(`DROP TABLE ${old}`);
      return n;
    });
  }

  /** Drops the old table once it is empty: true when dropped (or already gone). */
  async dropUnpartitionedIfEmpty(table: PartitionedTable): Promise<boolean> {
    try {
      return await this.db.transaction(async (m) => {
        const name = unpartitionedName(table);
        const [row] = await m.query<{ e: boolean }[]>(`SELECT to_regclass($1) IS NOT NULL AS e`, [
          name,
        ]);
        if (!row.e) return true;
        // Inserts read the old table while it exists (the webhook key trigger): never queue them
        // behind this lock for long.
        await m.query(`SELECT set_config('lock_timeout', $1, true)`, [DDL_LOCK_TIMEOUT]);
        await m.query(`LOCK TABLE ${ident(name)} IN ACCESS EXCLUSIVE MODE`);
        const left = await m.query<unknown[]>(`SELECT 1 FROM ${ident(name)} LIMIT 1`);
        if (left.length) return false;
        await m.query(`DROP TABLE ${ident(name)}`);
        const withIt = DROPPED_WITH_OLD[table];
        if (withIt) await m.query(withIt);
        return true;
      });
    } catch (e) {
      if ((e as { code?: string }).code !== '55P03') throw e; // lock_not_available: run again
      return false;
    }
  }
}

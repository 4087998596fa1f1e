import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenant keys for a distribution by institution (docs/scaling.md, step 5; the rules in
 * libs/db/src/schema-classes.ts): every primary key, unique constraint and unique index of a
 * tenant table, and every foreign key between tenant tables, includes institution_id.
 *
 * One file, one step per table (below, in the order the foreign keys need): the steps share the
 * foreign keys they move (a primary key cannot change while another table's foreign key uses it),
 * so one transaction takes them all or none.
 *
 * institution_id comes second in each key, (id, institution_id): the same index still serves every
 * lookup by id alone (workers and operator routes look up by id; the others by id and institution),
 * so no table gains an index. A foreign key between them is (<parent>_id, institution_id) to the
 * parent's (id, institution_id).
 *
 * Not here: transaction, webhook_delivery and webhook_attempt are re-keyed by their partitioning
 * migrations ((institution_id, <time>, id)); the foreign keys to transaction are gone already
 * (transaction-keys migration).
 *
 * The previous release's goal-progress insert (no institution_id, ON CONFLICT on the old key)
 * fails against this schema: its workers are stopped before this migration (CHANGELOG), else
 * the transactions they fail are quarantined as match_failed, to be retried after the rollout.
 */
const PLAIN_IDS = [
  'statement',
  'claim',
  'program',
  'cardholder_erasure',
  'csv_upload',
  'inbox_message',
  'security_event',
  'webhook_replay',
];

export class TenantKeys1795723001389 implements MigrationInterface {
  name = 'TenantKeys1795723001389';

  async up(q: QueryRunner): Promise<void> {
    // Foreign keys into the tables re-keyed below, dropped first and made composite at the end.
    await q.query(`
      ALTER TABLE redemption DROP CONSTRAINT redemption_cardholder_offer_id_fkey;
      ALTER TABLE goal_contribution DROP CONSTRAINT goal_contribution_cardholder_offer_id_fkey;
      ALTER TABLE settlement_entry DROP CONSTRAINT settlement_entry_redemption_id_fkey;
      ALTER TABLE webhook_delivery DROP CONSTRAINT webhook_delivery_redemption_id_fkey`);

    // cardholder_offer: enrollments.
    await q.query(`ALTER TABLE cardholder_offer DROP CONSTRAINT cardholder_offer_pkey,
                     ADD CONSTRAINT cardholder_offer_pkey PRIMARY KEY (id, institution_id)`);

    // goal_contribution: gains institution_id (its enrollment's), in its key and its foreign key.
    await q.query(`
      ALTER TABLE goal_contribution ADD COLUMN institution_id uuid;
      UPDATE goal_contribution g SET institution_id = co.institution_id
        FROM cardholder_offer co WHERE co.id = g.cardholder_offer_id;
      ALTER TABLE goal_contribution ALTER COLUMN institution_id SET NOT NULL,
        DROP CONSTRAINT goal_contribution_pkey,
        ADD CONSTRAINT goal_contribution_pkey PRIMARY KEY (transaction_id, cardholder_offer_id, institution_id),
        ADD CONSTRAINT goal_contribution_cardholder_offer_id_fkey FOREIGN KEY (cardholder_offer_id, institution_id)
          REFERENCES cardholder_offer (id, institution_id)`);

    // redemption: its key, one redemption per transaction (per institution), its enrollment.
    await q.query(`
      ALTER TABLE redemption DROP CONSTRAINT redemption_pkey,
        ADD CONSTRAINT redemption_pkey PRIMARY KEY (id, institution_id),
        DROP CONSTRAINT redemption_transaction_unique,
        ADD CONSTRAINT redemption_transaction_unique UNIQUE (transaction_id, institution_id),
        ADD CONSTRAINT redemption_cardholder_offer_id_fkey FOREIGN KEY (cardholder_offer_id, institution_id)
          REFERENCES cardholder_offer (id, institution_id)`);

    // settlement_entry: its key, one entry per redemption, its redemption.
    await q.query(`
      ALTER TABLE settlement_entry DROP CONSTRAINT settlement_entry_pkey,
        ADD CONSTRAINT settlement_entry_pkey PRIMARY KEY (id, institution_id),
        DROP CONSTRAINT settlement_entry_redemption_unique,
        ADD CONSTRAINT settlement_entry_redemption_unique UNIQUE (redemption_id, institution_id),
        ADD CONSTRAINT settlement_entry_redemption_id_fkey FOREIGN KEY (redemption_id, institution_id)
          REFERENCES redemption (id, institution_id)`);

    // statement_movement: its key, each movement of an entry booked once.
    await q.query(`
      ALTER TABLE statement_movement DROP CONSTRAINT statement_movement_pkey,
        ADD CONSTRAINT statement_movement_pkey PRIMARY KEY (id, institution_id),
        DROP CONSTRAINT statement_movement_once,
        ADD CONSTRAINT statement_movement_once UNIQUE (settlement_entry_id, type, institution_id)`);

    // card_chain: one chain per rewarded transaction (per institution).
    await q.query(`
      DROP INDEX card_chain_rewarded_idx;
      CREATE UNIQUE INDEX card_chain_rewarded_idx ON card_chain (rewarded_transaction_id, institution_id)
       WHERE rewarded_transaction_id IS NOT NULL`);

    // csv_upload: who uploaded stays a plain column; a tenant table may not refer to a global one
    // (portal_user). The listing joins it LEFT, and portal users are removed only with their
    // institution, whose uploads go with them.
    await q.query(`ALTER TABLE csv_upload DROP CONSTRAINT csv_upload_uploaded_by_user_id_fkey`);

    // statement, claim, program, cardholder_erasure, csv_upload, inbox_message, security_event,
    // webhook_replay: (id) becomes (id, institution_id); nothing refers to them.
    for (const t of PLAIN_IDS) {
      await q.query(
        `ALTER TABLE ${t} DROP CONSTRAINT ${t}_pkey, ADD CONSTRAINT ${t}_pkey PRIMARY KEY (id, institution_id)`,
      );
    }

    // webhook_delivery's redemption, composite (its keys are its partitioning migration's).
    await q.query(`
      ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_redemption_id_fkey
        FOREIGN KEY (redemption_id, institution_id)
          REFERENCES redemption (id, institution_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_delivery DROP CONSTRAINT webhook_delivery_redemption_id_fkey;
      ALTER TABLE settlement_entry DROP CONSTRAINT settlement_entry_redemption_id_fkey;
      ALTER TABLE redemption DROP CONSTRAINT redemption_cardholder_offer_id_fkey;
      ALTER TABLE goal_contribution DROP CONSTRAINT goal_contribution_cardholder_offer_id_fkey`);
    for (const t of [
      ...PLAIN_IDS,
      'cardholder_offer',
      'redemption',
      'settlement_entry',
      'statement_movement',
    ]) {
      await q.query(
        `ALTER TABLE ${t} DROP CONSTRAINT ${t}_pkey, ADD CONSTRAINT ${t}_pkey PRIMARY KEY (id)`,
      );
    }
    await q.query(`
      ALTER TABLE csv_upload ADD CONSTRAINT csv_upload_uploaded_by_user_id_fkey
        FOREIGN KEY (uploaded_by_user_id) REFERENCES portal_user (id) ON DELETE SET NULL;
      DROP INDEX card_chain_rewarded_idx;
      CREATE UNIQUE INDEX card_chain_rewarded_idx ON card_chain (rewarded_transaction_id)
       WHERE rewarded_transaction_id IS NOT NULL;
      ALTER TABLE statement_movement DROP CONSTRAINT statement_movement_once,
        ADD CONSTRAINT statement_movement_once UNIQUE (settlement_entry_id, type);
      ALTER TABLE settlement_entry DROP CONSTRAINT settlement_entry_redemption_unique,
        ADD CONSTRAINT settlement_entry_redemption_unique UNIQUE (redemption_id),
        ADD CONSTRAINT settlement_entry_redemption_id_fkey FOREIGN KEY (redemption_id) REFERENCES redemption (id);
      ALTER TABLE redemption DROP CONSTRAINT redemption_transaction_unique,
        ADD CONSTRAINT redemption_transaction_unique UNIQUE (transaction_id),
        ADD CONSTRAINT redemption_cardholder_offer_id_fkey FOREIGN KEY (cardholder_offer_id) REFERENCES cardholder_offer (id);
      ALTER TABLE goal_contribution DROP CONSTRAINT goal_contribution_pkey,
        ADD CONSTRAINT goal_contribution_pkey PRIMARY KEY (transaction_id, cardholder_offer_id),
        DROP COLUMN institution_id,
        ADD CONSTRAINT goal_contribution_cardholder_offer_id_fkey FOREIGN KEY (cardholder_offer_id) REFERENCES cardholder_offer (id);
      ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_redemption_id_fkey
        FOREIGN KEY (redemption_id) REFERENCES redemption (id)`);
  }
}

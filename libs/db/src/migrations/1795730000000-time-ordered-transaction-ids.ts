import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * uuid_time_ordered(): a version 7 UUID (RFC 9562): the first 48 bits the Unix time in
 * milliseconds, then random bits, so that ids made one after another sort one after another. New
 * transactions take their ids from it (the transaction store's insert). transaction_key's index of
 * transaction ids never loses a row to retention and grows for years; with random ids each new key
 * lands on a page of its own, and the first change to a page after a checkpoint writes the whole
 * page to WAL: at 15.3 M keys, 24,000 keys inserted just after a checkpoint wrote 6,994 bytes of
 * WAL each with random ids and 387 with these (docs/performance.md). PostgreSQL 18 has uuidv7();
 * this works from 13 on.
 */
export class TimeOrderedTransactionIds1795730000000 implements MigrationInterface {
  name = 'TimeOrderedTransactionIds1795730000000';

  async up(q: QueryRunner): Promise<void> {
    // Bits 52 and 53 (bytea bit numbering) turn gen_random_uuid()'s version nibble 0100 into 0111.
    await q.query(`
      CREATE FUNCTION uuid_time_ordered() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
        SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) PLACING
                 substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                 FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION uuid_time_ordered()`);
  }
}

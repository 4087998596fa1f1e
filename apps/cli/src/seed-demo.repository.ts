import { DataSource } from 'typeorm';

/**
 * The reads that keep seed:demo idempotent: what an earlier run already created, found by the
 * names, e-mails, identifiers and titles the seed gives it.
 */
export class SeedDemoRepository {
  constructor(private readonly db: DataSource) {}

  /** The first institution of that name. */
  async institutionIdByName(name: string): Promise<string | undefined> {
    const [row] = await this.db.query(
      `SELECT id FROM institution WHERE name = $1 ORDER BY created_at LIMIT 1`,
      [name],
    );
    return row?.id;
  }

  /** Whether a portal user has that e-mail (stored lower-case). */
  async portalUserExists(email: string): Promise<boolean> {
    const [row] = await this.db.query(`SELECT 1 FROM portal_user WHERE lower(email) = $1`, [email]);
    return row !== undefined;
  }

  /** The merchant an identifier maps to. */
  async merchantIdByIdentifier(type: string, value: string): Promise<string | undefined> {
    const [row] = await this.db.query(
      `SELECT merchant_id FROM merchant_identifier WHERE type = $1 AND value = $2`,
      [type, value],
    );
    return row?.merchant_id;
  }

  /** The offers targeted at the institution by English title (the first one of each), with their texts. */
  async offersByTitle(
    institutionId: string,
  ): Promise<
    Map<
      string,
      { id: string; translations: Record<string, { title?: string; description?: string }> }
    >
  > {
    const rows: {
      id: string;
      title: string;
      translations: Record<string, { title?: string; description?: string }>;
    }[] = await this.db.query(
      `SELECT o.id, o.translations -> 'en' ->> 'title' AS title, o.translations FROM offer o
         JOIN offer_target t ON t.offer_id = o.id WHERE t.institution_id = $1
        ORDER BY o.created_at DESC`,
      [institutionId],
    );
    return new Map(rows.map((r) => [r.title, { id: r.id, translations: r.translations }]));
  }

  /** The first offer targeted at the institution with that English title. */
  async offerIdByTitle(institutionId: string, title: string): Promise<string | undefined> {
    const [row] = await this.db.query(
      `SELECT o.id FROM offer o JOIN offer_target t ON t.offer_id = o.id
        WHERE t.institution_id = $1 AND o.translations -> 'en' ->> 'title' = $2
        ORDER BY o.created_at LIMIT 1`,
      [institutionId, title],
    );
    return row?.id;
  }
}

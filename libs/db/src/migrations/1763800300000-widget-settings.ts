import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Widget settings per institution (set by its admins in the portal): the exact origins allowed
 * to call the browser-facing widget API, theme defaults for the embedded widget, and whether the
 * widget's feed is personalized. The GIN index answers "does any institution list this origin?"
 * (a CORS preflight carries no session, so it cannot know the institution yet).
 */
export class WidgetSettings1763800300000 implements MigrationInterface {
  name = 'WidgetSettings1763800300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE widget_settings (
        institution_id uuid PRIMARY KEY REFERENCES institution(id) ON DELETE CASCADE,
        allowed_origins text[] NOT NULL DEFAULT '{}',
        theme jsonb NOT NULL DEFAULT '{}',
        personalize boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX widget_settings_origins_idx ON widget_settings USING gin (allowed_origins);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE widget_settings`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every read of engagement_event is an index range scan of a few edge hours (the funnel); a
 * parallel plan, chosen on a misestimated time range, only adds worker start-up: 0.2 ms serial
 * against 50 ms with a Gather on a busy two-core host (bench, funnel of one institution).
 */
export class EngagementEventNoParallel1763800500250 implements MigrationInterface {
  name = 'EngagementEventNoParallel1763800500250';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE engagement_event SET (parallel_workers = 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE engagement_event RESET (parallel_workers)`);
  }
}

import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The readiness probe's one statement. */
@Injectable()
export class HealthRepository {
  constructor(private readonly db: DataSource) {}

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }
}

import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The readiness probes' one statement (the api's /ready and the worker's boot check and /ready). */
@Injectable()
export class HealthRepository {
  constructor(private readonly db: DataSource) {}

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }
}

import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The read of an institution's signing secret for `X-Service-Signature`. */
@Injectable()
export class SigningSecretRepository {
  constructor(private readonly db: DataSource) {}

  /** The encrypted secret; null when none is set (or no such institution). */
  async findEncrypted(institutionId: string): Promise<string | null> {
    const rows: { secret: string | null }[] = await this.db.query(
      `SELECT webhook_secret_encrypted AS secret FROM institution WHERE id = $1`,
      [institutionId],
    );
    return rows[0]?.secret ?? null;
  }
}

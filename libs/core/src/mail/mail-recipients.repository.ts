import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Who an institution's e-mail goes to: its portal users. */
@Injectable()
export class MailRecipientsRepository {
  constructor(private readonly db: DataSource) {}

  async emailsOf(institutionId: string): Promise<string[]> {
    const users: { email: string }[] = await this.db.query(
      `SELECT email FROM portal_user WHERE institution_id = $1 ORDER BY email`,
      [institutionId],
    );
    return users.map((u) => u.email);
  }
}

import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import { AppConfig } from '@app/config';
import { MailRecipientsRepository } from './mail-recipients.repository';

/**
 * E-mail to an institution's portal users, when SMTP_URL is set: one message, every user in Bcc.
 * Always best effort and after the commit of what it reports: the inbox message is the record, so
 * a failed send is logged and never fails the caller.
 */
@Injectable()
export class InstitutionMailer implements OnModuleDestroy {
  private readonly logger = new Logger('InstitutionMailer');
  private readonly transport?: Transporter;

  constructor(
    private readonly recipients: MailRecipientsRepository,
    private readonly config: AppConfig,
  ) {
    if (config.smtp) this.transport = createTransport(config.smtp.url);
  }

  /** Sends it; answers how many users it went to (0 without SMTP, users, or on failure). */
  async send(
    institutionId: string,
    message: { subject: string; text: string; portalPath: string; what: string },
  ): Promise<number> {
    if (!this.transport || !this.config.smtp) return 0;
    const portal = this.config.publicBaseUrl
      ? `\n\nPortal: ${this.config.publicBaseUrl.replace(/\/$/, '')}/portal/${message.portalPath}`
      : '';
    // Everything inside the try: callers fire and forget, so nothing here may reject.
    try {
      const users = await this.recipients.emailsOf(institutionId);
      if (!users.length) return 0;
      await this.transport.sendMail({
        from: this.config.smtp.from,
        bcc: users,
        subject: message.subject,
        text: message.text + portal,
      });
      return users.length;
    } catch (e) {
      this.logger.warn(
        { institutionId, err: (e as Error).message },
        `${message.what} e-mail failed (the inbox message was recorded)`,
      );
      return 0;
    }
  }

  onModuleDestroy(): void {
    this.transport?.close();
  }
}

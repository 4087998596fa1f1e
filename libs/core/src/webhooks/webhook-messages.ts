import { WEBHOOK_MAX_ATTEMPTS } from '@app/domain';

/**
 * The English texts of the webhook messages an institution's staff read: the portal inbox and the
 * e-mails sent with it. All of them are here, for a translator; the statements that write them
 * take them as parameters. A `{name}` placeholder is filled in where the message is written.
 */
export const WEBHOOK_MESSAGES = {
  /** A delivery failed for good (kind `webhook.failed`, once per delivery). */
  failed: {
    title: 'A redemption webhook could not be delivered',
    body: (deliveryId: string, why: string) =>
      `Delivery ${deliveryId} could not be delivered. ${why} ` +
      `Open it under Webhooks → Deliveries to see every attempt; once your endpoint works, use Redeliver ` +
      `(same payload and X-Service-Delivery-Id, so your deduplication still applies).`,
    gone: 'Your endpoint answered 410 Gone, so no further attempts will be made.',
    exhausted: (lastError: string) =>
      `All ${WEBHOOK_MAX_ATTEMPTS} attempts over about two hours failed (last: ${lastError}).`,
  },
  /** The URL kept failing and is paused (kind `webhook.paused`, also e-mailed). */
  paused: {
    title: 'Webhook deliveries are paused',
    /** `{since}`: when the failing streak began, `YYYY-MM-DD HH:MI` UTC (filled in by the statement that pauses). */
    body:
      'Every attempt to your webhook URL has failed since {since} UTC, so deliveries are paused: new and pending ' +
      'events wait, nothing is lost. Fix your endpoint, then resume under Webhooks; waiting deliveries are sent ' +
      'in the order they were created.',
  },
};

/** The body of a `webhook.failed` message: why the delivery failed (`gone` or the last error). */
export function deliveryFailedBody(
  deliveryId: string,
  reason: string,
  last: { httpStatus: number | null; errorClass: string | null },
): string {
  const m = WEBHOOK_MESSAGES.failed;
  const lastError =
    last.httpStatus !== null ? `HTTP ${last.httpStatus}` : (last.errorClass ?? 'error');
  return m.body(deliveryId, reason === 'gone' ? m.gone : m.exhausted(lastError));
}

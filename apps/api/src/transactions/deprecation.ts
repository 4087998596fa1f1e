import type { NextFunction, Request, Response } from 'express';
import { VERSIONING_POLICY_PATH } from '../docs/versioning-policy';

/** When the earlier transaction payload shape was deprecated (RFC 9745 date: @epoch-seconds). */
export const EARLIER_SHAPE_DEPRECATED_AT = '@1795392000'; // 2026-11-23T00:00:00Z

/** Fields only the earlier shape has (the current shape names them transaction_ref, transacted_at). */
const EARLIER_FIELDS = ['transaction_id', 'timestamp'];

function usesEarlierShape(event: unknown): boolean {
  return (
    !!event &&
    typeof event === 'object' &&
    EARLIER_FIELDS.some((f) => (event as Record<string, unknown>)[f] !== undefined)
  );
}

/** Where a deprecated feature's answers point: the versioning policy, served by the api. */
export const DEPRECATION_LINK = `<${VERSIONING_POLICY_PATH}>; rel="deprecation"; type="text/markdown"`;

/**
 * Answers to requests that use the earlier payload shape carry `Deprecation` and a `Link` to the
 * versioning policy (GET /docs/versioning; docs/versioning.md). The shape keeps working.
 */
export function earlierShapeDeprecation(req: Request, res: Response, next: NextFunction): void {
  const body = req.body as { transactions?: unknown } | undefined;
  const events = Array.isArray(body?.transactions) ? body.transactions : [body];
  if (req.method === 'POST' && events.some(usesEarlierShape)) {
    res.setHeader('Deprecation', EARLIER_SHAPE_DEPRECATED_AT);
    res.setHeader('Link', DEPRECATION_LINK);
  }
  next();
}

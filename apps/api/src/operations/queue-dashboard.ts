import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { roleMay } from '@app/domain';
import { OperatorCredentials } from '../auth/operator-credentials.service';
import { ApiError } from '../common/api-error';
import { OperatorQueues } from './operator-queues';

/** The queue dashboard (Bull Board), beside the admin API. */
export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * Mounts Bull Board at /admin/queues behind an operator token (the break-glass token or an
 * `admin` operator's personal token): `Authorization: Bearer <token>`, or HTTP Basic with the
 * token as password (a browser asks for it). Changes (retry, remove) must come from the
 * dashboard's own page, so another site cannot ride a browser's cached credentials.
 */
export function mountQueueDashboard(app: NestExpressApplication): void {
  const credentials = app.get(OperatorCredentials);
  const board = new ExpressAdapter().setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: app.get(OperatorQueues).queues.map((q) => new BullMQAdapter(q)),
    serverAdapter: board,
  });
  app.use(QUEUE_DASHBOARD_PATH, operatorOnly(credentials), board.getRouter());
}

function operatorOnly(credentials: OperatorCredentials) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const header = req.header('authorization') ?? '';
    const bearer = /^Bearer (\S+)$/.exec(header)?.[1];
    const basic = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header)?.[1];
    const password = basic
      ? Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':')
      : undefined;
    const given = bearer ?? password;
    const principal = given
      ? await credentials.fromBearer(given).catch((e: unknown) => {
          if (e instanceof ApiError) return null; // unknown, revoked or expired
          throw e;
        })
      : null;
    if (!principal) {
      res
        .status(401)
        .set('WWW-Authenticate', 'Basic realm="operators", charset="UTF-8"')
        .json({
          error: given ? 'invalid_token' : 'unauthorized',
          message:
            'The queue dashboard needs the operator token (Bearer, or Basic with it as password).',
          request_id: req.id,
        });
      return;
    }
    if (principal.type === 'operator' && !roleMay(principal.role, 'operations')) {
      res.status(403).json({
        error: 'insufficient_role',
        message: `Your role (${principal.role}) may not use the queue dashboard; it needs admin.`,
        request_id: req.id,
      });
      return;
    }
    const origin = req.header('origin');
    if (!['GET', 'HEAD'].includes(req.method) && origin && hostOf(origin) !== req.header('host')) {
      res.status(403).json({
        error: 'cross_origin',
        message: 'Queue changes are accepted from the dashboard itself only.',
        request_id: req.id,
      });
      return;
    }
    next();
  };
}

/** The host of an Origin header; null for `null` (sandboxed frames) or anything unparsable. */
function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { allowPreflight, crossOrigin, varyOnOrigin } from './widget-cors';
import { WidgetSettingsRepository } from './widget-settings.repository';

/**
 * CORS preflight of the widget API. A preflight carries no session, so it cannot know the
 * institution: it is granted when any institution lists the origin; the real request is then
 * checked against the session's institution (WidgetSessionGuard). Anything else: 204 without
 * CORS headers, which the browser reads as "refused".
 */
@Injectable()
export class WidgetPreflightMiddleware implements NestMiddleware {
  constructor(private readonly settings: WidgetSettingsRepository) {}

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (req.method !== 'OPTIONS') return next();
    try {
      varyOnOrigin(res);
      const origin = crossOrigin(req);
      if (origin && origin !== 'null' && (await this.settings.listedByAny(origin)))
        allowPreflight(res, origin);
      res.status(204).end();
    } catch (e) {
      next(e);
    }
  }
}

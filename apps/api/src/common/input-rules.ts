import type { NextFunction, Request, Response } from 'express';
import { findInputProblem, jsonTooDeep, MAX_JSON_DEPTH } from '@app/domain';
import { ApiError } from './api-error';

/** Batch items are validated one by one (an item's bad string fails that item, not the batch). */
const BATCH_PATH = '/api/v1/transactions/batch';
const BATCH_ITEM = /^transactions\[\d+\]/;

/** Thrown from the JSON parser's verify hook: the raw body nests too deep to parse safely. */
export function assertJsonDepth(buf: Buffer): void {
  if (jsonTooDeep(buf))
    throw Object.assign(new Error('JSON nests too deep'), { type: 'entity.too.deep' });
}

export const tooDeepError = () =>
  ApiError.validation([{ field: 'body', message: `nests deeper than ${MAX_JSON_DEPTH} levels` }]);

/**
 * The shared input rules (libs/domain json-input) on every parsed body and query string, before
 * any guard or route: NUL, lone surrogates and __proto__ keys are a 400 naming the field.
 */
export function inputRules(req: Request, _res: Response, next: NextFunction): void {
  const skip = req.path === BATCH_PATH ? (p: string) => BATCH_ITEM.test(p) : undefined;
  const problem =
    findInputProblem(req.query as unknown) ?? findInputProblem(req.body as unknown, '', skip);
  next(problem ? ApiError.validation([problem]) : undefined);
}

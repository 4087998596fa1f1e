import { ExecutionContext, Logger } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { AppConfig } from '@app/config';
import { ApiKeyGuard } from './api-key.guard';
import type { ApiKeyCache } from './api-key-cache.service';
import type { ApiKeysRepository } from './api-keys.repository';
import type { RateLimiterService } from './rate-limiter.service';

describe('ApiKeyGuard', () => {
  afterEach(() => jest.restoreAllMocks());

  it('a failed write of the key’s last use is logged with the request id; the request goes on', async () => {
    const warned = new Promise<unknown[]>((resolve) =>
      jest.spyOn(Logger.prototype, 'warn').mockImplementation((...args) => resolve(args)),
    );
    const key = {
      id: 'key-1',
      name: 'k',
      hint: 'abcd',
      scopes: ['transactions'],
      expires_at: null,
      revoked_at: null,
      institution_id: 'inst-1',
      institution_name: 'Bank',
      institution_status: 'active',
      plan: 'growth',
      rate_limits: null,
      stale: true,
    };
    const guard = new ApiKeyGuard(
      { getAllAndOverride: () => 'account' } as unknown as Reflector,
      { touchLastUsed: () => Promise.reject(new Error('db down')) } as unknown as ApiKeysRepository,
      { find: async () => key } as unknown as ApiKeyCache,
      { rateLimits: { defaultPerMinute: 100, reportingPerMinute: 60 } } as unknown as AppConfig,
      {
        hit: async () => ({ allowed: true, limit: 100, remaining: 99, resetSeconds: 60 }),
      } as unknown as RateLimiterService,
    );
    const req = { id: 'req-42', header: () => 'Bearer sk_test_1' };
    const res = { setHeader: () => undefined };
    const ctx = {
      switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }),
      getHandler: () => undefined,
      getClass: () => undefined,
    } as unknown as ExecutionContext;
    await expect(guard.canActivate(ctx)).resolves.toBe(true);
    expect(await warned).toEqual([
      { err: 'db down', requestId: 'req-42' },
      'could not record key use',
    ]);
  });

  it('a route open to any of several scopes takes a key holding one, counted in that scope’s group; others are 403', async () => {
    const hits: string[] = [];
    const guardFor = (scopes: string[] | null) =>
      new ApiKeyGuard(
        { getAllAndOverride: () => ['transactions', 'claims'] } as unknown as Reflector,
        { touchLastUsed: async () => undefined } as unknown as ApiKeysRepository,
        {
          find: async () => ({
            id: 'key-1',
            name: 'k',
            hint: 'abcd',
            scopes,
            expires_at: null,
            revoked_at: null,
            institution_id: 'inst-1',
            institution_name: 'Bank',
            institution_status: 'active',
            plan: 'growth',
            rate_limits: null,
            stale: false,
          }),
        } as unknown as ApiKeyCache,
        { rateLimits: { defaultPerMinute: 100, reportingPerMinute: 60 } } as unknown as AppConfig,
        {
          hit: async (k: string) => {
            hits.push(k);
            return { allowed: true, limit: 100, remaining: 99, resetSeconds: 60 };
          },
        } as unknown as RateLimiterService,
      );
    const ctx = {
      switchToHttp: () => ({
        getRequest: () => ({ id: 'r', header: () => 'Bearer sk_test_1' }),
        getResponse: () => ({ setHeader: () => undefined }),
      }),
      getHandler: () => undefined,
      getClass: () => undefined,
    } as unknown as ExecutionContext;
    await expect(guardFor(['claims']).canActivate(ctx)).resolves.toBe(true);
    await expect(guardFor(['transactions', 'claims']).canActivate(ctx)).resolves.toBe(true);
    await expect(guardFor(['reporting']).canActivate(ctx)).rejects.toMatchObject({
      code: 'insufficient_scope',
    });
    expect(hits).toEqual(['key-1:claims', 'key-1:transactions']);
  });
});

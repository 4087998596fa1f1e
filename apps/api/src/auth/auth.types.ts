import type { Plan, Scope } from '@app/domain';
import type { RateLimitOverrides } from '@app/db';

/** What a valid API key tells about the caller. The institution comes from here, never a body. */
export interface ApiKeyPrincipal {
  keyId: string;
  keyName: string;
  keyHint: string;
  scopes: Scope[];
  expiresAt: Date | null;
  institutionId: string;
  institutionName: string;
  plan: Plan;
  rateLimits: RateLimitOverrides;
}

declare module 'express-serve-static-core' {
  interface Request {
    apiKey?: ApiKeyPrincipal;
  }
}

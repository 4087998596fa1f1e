import type { PortalRole } from '@app/domain';

/**
 * A signed-in portal user, as the portal's session guard resolves it from the session cookie.
 * Services of other modules (webhooks, widget settings) act for one and record it as the actor.
 */
export interface PortalPrincipal {
  sessionId: string;
  userId: string;
  email: string;
  role: PortalRole;
  institutionId: string;
  institutionName: string;
  plan: string;
  csrfToken: string;
}

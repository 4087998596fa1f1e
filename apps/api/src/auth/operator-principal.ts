import type { AuditActor, OperatorRole } from '@app/domain';
import { BREAK_GLASS_ACTOR } from '@app/domain';

/**
 * Who calls the admin API, as the operator guard resolves it: a named operator (by personal
 * token or console session) or the break-glass OPERATOR_TOKEN.
 */
export type OperatorPrincipal =
  | {
      type: 'operator';
      id: string;
      email: string;
      name: string;
      role: OperatorRole;
      via: 'token' | 'session';
      /** The token's or session's id. */
      credentialId: string;
    }
  | { type: 'break_glass' };

/** The principal as the audit log names it. */
export function auditActorOf(p: OperatorPrincipal): AuditActor {
  return p.type === 'break_glass'
    ? BREAK_GLASS_ACTOR
    : { type: 'operator', id: p.id, email: p.email };
}

/** Maps PostgreSQL error codes the services react to. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_FOREIGN_KEY_VIOLATION = '23503';
export const PG_CHECK_VIOLATION = '23514';

export function pgErrorCode(e: unknown): string | undefined {
  const err = e as { code?: string; driverError?: { code?: string } };
  return err?.driverError?.code ?? err?.code;
}

export function pgConstraint(e: unknown): string | undefined {
  const err = e as { constraint?: string; driverError?: { constraint?: string } };
  return err?.driverError?.constraint ?? err?.constraint;
}

// The console's session: who is signed in (GET /admin/api/v1/auth/me), read once and kept.
import { useQuery } from '@tanstack/react-query';
import { admin, setConsoleCsrf, type Schemas } from './api';

export type ConsoleSession = Schemas['OperatorSessionDto'];
export type Role = Schemas['OperatorDto']['role'];

export const consoleKeys = { me: ['console', 'me'] as const };

export const meQuery = {
  queryKey: consoleKeys.me,
  queryFn: async ({ signal }: { signal: AbortSignal }): Promise<ConsoleSession | null> => {
    try {
      const r = await admin.GET('/admin/api/v1/auth/me', { signal });
      if (!r.data) return null;
      setConsoleCsrf(r.data.csrf_token);
      return r.data;
    } catch {
      return null;
    }
  },
  staleTime: Infinity,
};

/** The signed-in operator (null for the break-glass token, which a browser never holds). */
export function useOperator(): { id: string; role: Role; email: string } | null {
  const me = useQuery(meQuery).data;
  return me?.operator ?? null;
}

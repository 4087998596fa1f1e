import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { KeysetAfter, keysetSql, returnedRows } from '@app/db';
import type { RateLimitOverrides } from '@app/db';
import type { Locale, Plan, PortalRole, RewardOn, SortOrder } from '@app/domain';

/** Program settings by column; only the columns present are written (the rest keep defaults). */
export interface ProgramColumns {
  supported_locales?: Locale[];
  sort_order?: SortOrder;
  max_active_offers?: number;
  widget_feed_limit?: number;
  service_share_rate?: number;
  settlement_hold_days?: number;
  time_zone?: string;
  reward_on?: RewardOn;
  authorization_expiry_days?: number;
  claim_window_days?: number;
}

type OptionalProgramColumn = 'time_zone' | 'reward_on' | 'authorization_expiry_days';

export interface InstitutionRow {
  id: string;
  name: string;
  plan: Plan;
  status: 'active' | 'suspended';
  rate_limits: RateLimitOverrides | null;
  webhook_url: string | null;
  created_at: Date;
  cursor_t: string;
  /** time_zone, reward_on and authorization_expiry_days only when set (absent = the defaults). */
  program: Required<Omit<ProgramColumns, OptionalProgramColumn>> &
    Pick<ProgramColumns, OptionalProgramColumn>;
}

const SELECT = `
  SELECT i.id, i.name, i.plan, i.status, i.rate_limits, i.webhook_url, i.created_at,
         json_strip_nulls(json_build_object('supported_locales', p.supported_locales, 'sort_order', p.sort_order,
                           'max_active_offers', p.max_active_offers, 'widget_feed_limit', p.widget_feed_limit,
                           'service_share_rate', p.service_share_rate::float8,
                           'settlement_hold_days', p.settlement_hold_days, 'time_zone', p.time_zone,
                           'reward_on', p.reward_on, 'authorization_expiry_days', p.authorization_expiry_days,
                           'claim_window_days', p.claim_window_days)) AS program`;
const FROM = `FROM institution i JOIN program p ON p.institution_id = i.id`;

/** Every statement over institution, program and portal_user for the operators' API. */
@Injectable()
export class InstitutionsRepository {
  constructor(private readonly db: DataSource) {}

  /** The institution and its program, in the caller's transaction. */
  async create(
    m: EntityManager,
    inst: { name: string; plan: Plan; rateLimits: RateLimitOverrides },
    program: ProgramColumns,
  ): Promise<string> {
    {
      const [{ id }] = await m.query(
        `INSERT INTO institution (name, plan, rate_limits) VALUES ($1, $2, $3) RETURNING id`,
        [inst.name, inst.plan, JSON.stringify(inst.rateLimits)],
      );
      const { names, values } = columns(program);
      await m.query(
        `INSERT INTO program (institution_id${names.map((n) => `, ${n}`).join('')})
         VALUES ($1${values.map((_, n) => `, $${n + 2}`).join('')})`,
        [id, ...values],
      );
      return id as string;
    }
  }

  async find(id: string, m: EntityManager = this.db.manager): Promise<InstitutionRow | undefined> {
    const rows: InstitutionRow[] = await m.query(`${SELECT} ${FROM} WHERE i.id = $1`, [id]);
    return rows[0];
  }

  /** The institution, its row locked for the rest of `m`'s transaction. */
  async findForUpdate(m: EntityManager, id: string): Promise<InstitutionRow | undefined> {
    const rows: InstitutionRow[] = await m.query(
      `${SELECT} ${FROM} WHERE i.id = $1 FOR UPDATE OF i`,
      [id],
    );
    return rows[0];
  }

  listPage(after: KeysetAfter | null, limit: number): Promise<InstitutionRow[]> {
    const page = keysetSql({ alias: 'i', after, limit });
    return this.db.query(
      `${SELECT}, ${page.cursor} ${FROM} WHERE TRUE ${page.and} ${page.orderLimit}`,
      page.params,
    );
  }

  /** Changes the given fields in the caller's transaction; false when there is no such institution. */
  async update(
    m: EntityManager,
    id: string,
    inst: { name?: string; plan?: Plan; status?: string; rateLimits?: RateLimitOverrides },
    program: ProgramColumns,
  ): Promise<boolean> {
    {
      const rows = returnedRows<{ id: string }>(
        await m.query(
          `UPDATE institution
              SET name = COALESCE($2, name), plan = COALESCE($3, plan), status = COALESCE($4, status),
                  rate_limits = COALESCE($5::jsonb, rate_limits), updated_at = now()
            WHERE id = $1 RETURNING id`,
          [
            id,
            inst.name ?? null,
            inst.plan ?? null,
            inst.status ?? null,
            inst.rateLimits === undefined ? null : JSON.stringify(inst.rateLimits),
          ],
        ),
      );
      if (!rows.length) return false;
      // Suspension ends every portal session of the institution in the same transaction.
      if (inst.status === 'suspended')
        await m.query(
          `UPDATE session SET revoked_at = now()
            WHERE revoked_at IS NULL AND user_id IN (SELECT id FROM portal_user WHERE institution_id = $1)`,
          [id],
        );
      const { names, values } = columns(program);
      if (names.length)
        await m.query(
          `UPDATE program SET ${names.map((n, i) => `${n} = $${i + 2}`).join(', ')}, updated_at = now()
            WHERE institution_id = $1`,
          [id, ...values],
        );
      return true;
    }
  }

  /** A portal login; a repeated e-mail raises the unique violation to the caller. */
  async createUser(
    m: EntityManager,
    u: {
      institutionId: string;
      email: string;
      passwordHash: string;
      role: PortalRole;
    },
  ): Promise<{ id: string; email: string; role: PortalRole; created_at: Date }> {
    const [row] = await m.query(
      `INSERT INTO portal_user (institution_id, email, password_hash, role)
       VALUES ($1, $2, $3, $4) RETURNING id, email, role, created_at`,
      [u.institutionId, u.email, u.passwordHash, u.role],
    );
    return row;
  }
}

const PROGRAM_COLUMNS = [
  'supported_locales',
  'sort_order',
  'max_active_offers',
  'widget_feed_limit',
  'service_share_rate',
  'settlement_hold_days',
  'time_zone',
  'reward_on',
  'authorization_expiry_days',
  'claim_window_days',
] as const;

/** The present program columns (names from the fixed list above, never from input). */
function columns(p: ProgramColumns): { names: string[]; values: unknown[] } {
  const names = PROGRAM_COLUMNS.filter((c) => p[c] !== undefined);
  return { names, values: names.map((c) => p[c]) };
}

import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export interface WidgetTheme {
  accent?: string;
  surface?: string;
  text?: string;
  radius?: string;
  font?: string;
  mode?: 'light' | 'dark' | 'auto';
}

export interface WidgetSettings {
  allowedOrigins: string[];
  theme: WidgetTheme;
  personalize: boolean;
  updatedAt: Date | null;
}

/** What a widget API request needs about the session's institution, in one indexed read. */
export interface SessionContext {
  institutionStatus: string;
  originAllowed: boolean;
  personalize: boolean;
  theme: WidgetTheme;
}

/** Every statement on widget_settings. */
@Injectable()
export class WidgetSettingsRepository {
  constructor(private readonly db: DataSource) {}

  async find(institutionId: string): Promise<WidgetSettings> {
    const [row]: {
      allowed_origins: string[];
      theme: WidgetTheme;
      personalize: boolean;
      updated_at: Date;
    }[] = await this.db.query(
      `SELECT allowed_origins, theme, personalize, updated_at FROM widget_settings WHERE institution_id = $1`,
      [institutionId],
    );
    return row
      ? {
          allowedOrigins: row.allowed_origins,
          theme: row.theme,
          personalize: row.personalize,
          updatedAt: row.updated_at,
        }
      : { allowedOrigins: [], theme: {}, personalize: false, updatedAt: null };
  }

  async save(
    institutionId: string,
    s: Omit<WidgetSettings, 'updatedAt'>,
    manager?: EntityManager,
  ): Promise<void> {
    await (manager ?? this.db.manager).query(
      `INSERT INTO widget_settings (institution_id, allowed_origins, theme, personalize)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (institution_id) DO UPDATE
         SET allowed_origins = EXCLUDED.allowed_origins, theme = EXCLUDED.theme,
             personalize = EXCLUDED.personalize, updated_at = now()`,
      [institutionId, s.allowedOrigins, JSON.stringify(s.theme), s.personalize],
    );
  }

  /** The institution (primary key) and its settings (primary key); null when no such institution. */
  async sessionContext(
    institutionId: string,
    origin: string | null,
  ): Promise<SessionContext | null> {
    const [row]: {
      status: string;
      origin_allowed: boolean;
      personalize: boolean | null;
      theme: WidgetTheme | null;
    }[] = await this.db.query(
      `SELECT i.status, coalesce($2::text = ANY (w.allowed_origins), false) AS origin_allowed,
              w.personalize, w.theme
         FROM institution i LEFT JOIN widget_settings w ON w.institution_id = i.id
        WHERE i.id = $1`,
      [institutionId, origin],
    );
    if (!row) return null;
    return {
      institutionStatus: row.status,
      originAllowed: row.origin_allowed,
      personalize: row.personalize ?? false,
      theme: row.theme ?? {},
    };
  }

  /** Whether any institution lists the origin (widget_settings_origins_idx, GIN). */
  async listedByAny(origin: string): Promise<boolean> {
    const [row]: { listed: boolean }[] = await this.db.query(
      `SELECT EXISTS (SELECT 1 FROM widget_settings WHERE allowed_origins @> ARRAY[$1::text]) AS listed`,
      [origin],
    );
    return row.listed;
  }
}

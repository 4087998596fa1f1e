import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { AuditFilter, AuditLogRepository, AuditRow } from '@app/core';
import { quoteCell, textCell } from '@app/domain';
import { ApiError } from '../common/api-error';
import { Keyset, Page } from '../common/pagination';
import { AuditEntryDto, AuditQuery } from './audit.dto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const AUDIT_CSV_FIELDS = [
  'id',
  'at',
  'actor_type',
  'actor_id',
  'actor_email',
  'action',
  'resource_type',
  'resource_id',
  'institution_id',
  'request_id',
  'ip',
  'before',
  'after',
  'hash',
] as const;

export const AUDIT_CSV_EXAMPLE =
  `${AUDIT_CSV_FIELDS.join(',')}\r\n` +
  '9d1e7c4a-2b3f-4c5d-8e6f-7a8b9c0d1e2f,2026-11-26T10:00:00.000Z,operator,7f8e2a1c-4b5d-4e6f-8a9b-0c1d2e3f4a5b,ana@ops.example,offer.update,offer,0b6f3c2d-1a4e-4f5b-9c8d-7e6f5a4b3c2d,,2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21,,"{""priority"":0}","{""priority"":5}",5f1c0e9a\r\n';

/** Reads of the audit log: the filtered keyset page, and the same set as one CSV file. */
@Injectable()
export class AuditLogService {
  private readonly keyset: Keyset;

  constructor(
    private readonly repo: AuditLogRepository,
    config: AppConfig,
  ) {
    this.keyset = new Keyset(config.keys, 'admin:audit');
  }

  async page(q: AuditQuery): Promise<Page<AuditEntryDto>> {
    const limit = q.limit ?? 100;
    const rows = await this.repo.list(filterOf(q), this.keyset.decode(q.cursor), limit);
    return this.keyset.page(rows, limit, toDto);
  }

  /** Every entry the filter selects, newest first, read a page at a time. */
  async *csv(q: AuditQuery): AsyncGenerator<string> {
    const filter = filterOf(q);
    yield `${AUDIT_CSV_FIELDS.join(',')}\r\n`;
    let after: { t: string; id: string } | null = null;
    for (;;) {
      const rows = await this.repo.list(filter, after, 1000);
      const page = rows.slice(0, 1000);
      for (const r of page) yield csvRow(r);
      if (rows.length <= 1000) return;
      const last = page[page.length - 1];
      after = { t: last.cursor_t, id: last.id };
    }
  }
}

function filterOf(q: AuditQuery): AuditFilter {
  if (q.actor !== undefined && !['break_glass', 'system'].includes(q.actor) && !UUID.test(q.actor))
    throw ApiError.validation([
      { field: 'actor', message: 'must be an operator id, break_glass or system' },
    ]);
  if (q.institution_id !== undefined && !UUID.test(q.institution_id))
    throw ApiError.validation([{ field: 'institution_id', message: 'must be a UUID' }]);
  return {
    resourceType: q.resource_type,
    resourceId: q.resource_id,
    actor: q.actor,
    institutionId: q.institution_id,
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
  };
}

function toDto(r: AuditRow): AuditEntryDto {
  return {
    id: r.id,
    at: r.created_at.toISOString(),
    actor: { type: r.actor_type, id: r.actor_id, email: r.actor_email },
    action: r.action,
    resource_type: r.resource_type,
    resource_id: r.resource_id,
    institution_id: r.institution_id,
    before: r.before ?? null,
    after: r.after ?? null,
    request_id: r.request_id,
    ip: r.ip,
    hash: r.hash,
  };
}

function csvRow(r: AuditRow): string {
  const cells = [
    r.id,
    r.created_at.toISOString(),
    r.actor_type,
    r.actor_id ?? '',
    textCell(r.actor_email ?? ''),
    textCell(r.action),
    textCell(r.resource_type),
    textCell(r.resource_id ?? ''),
    r.institution_id ?? '',
    textCell(r.request_id ?? ''),
    textCell(r.ip ?? ''),
    r.before == null ? '' : quoteCell(JSON.stringify(r.before)),
    r.after == null ? '' : quoteCell(JSON.stringify(r.after)),
    r.hash,
  ];
  return `${cells.join(',')}\r\n`;
}

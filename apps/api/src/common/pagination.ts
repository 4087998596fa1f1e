import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import type { KeyRing } from '@app/config';
import { CursorKey, decodeCursor, encodeCursor } from '@app/domain';
import { ApiError } from './api-error';

export class PageQuery {
  @ApiPropertyOptional({
    description: 'Opaque cursor from the previous page',
    example: 'eyJ0Ijoi...Q.abc',
  })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}

export class PaginationDto {
  @ApiProperty({ example: 100 }) limit: number;
  @ApiProperty({
    nullable: true,
    type: String,
    example: null,
    description: 'Pass back as `cursor`; null at the end',
  })
  next_cursor: string | null;
}

export interface Page<T> {
  data: T[];
  pagination: { limit: number; next_cursor: string | null };
}

/**
 * Keyset paging helpers over (created_at, id), newest first. Cursors are MACed with the
 * `cursor-mac` key; for 24 h after the upgrade one MACed with SECRETS_KEY itself still opens.
 */
export class Keyset {
  constructor(
    private readonly keys: KeyRing,
    private readonly scope: string,
  ) {}

  decode(cursor: string | undefined): CursorKey | null {
    if (cursor === undefined) return null;
    let key: CursorKey | null = null;
    for (const secret of this.keys.macVerifiers('cursor-mac')) {
      key ??= decodeCursor(secret, this.scope, cursor);
    }
    if (!key)
      throw ApiError.validation([
        { field: 'cursor', message: 'is not a valid cursor for this list' },
      ]);
    return key;
  }

  /**
   * Builds the page from rows fetched with LIMIT limit + 1. Each row carries `cursor_t`, its
   * created_at as text with microseconds (JS dates would drop them and skip rows).
   */
  page<R extends { id: string; cursor_t: string }, T>(
    rows: R[],
    limit: number,
    map: (r: R) => T,
  ): Page<T> {
    return this.pageBy(rows, limit, map, (r) => ({ t: r.cursor_t, id: r.id }));
  }

  /** The same, for a list whose sort key is not (created_at, id): `key` gives a row's. */
  pageBy<R, T>(rows: R[], limit: number, map: (r: R) => T, key: (r: R) => CursorKey): Page<T> {
    const more = rows.length > limit;
    const kept = more ? rows.slice(0, limit) : rows;
    const last = kept[kept.length - 1];
    return {
      data: kept.map(map),
      pagination: {
        limit,
        next_cursor: more && last ? encodeCursor(this.keys.cursorMac, this.scope, key(last)) : null,
      },
    };
  }
}

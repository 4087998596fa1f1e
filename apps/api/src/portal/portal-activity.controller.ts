import { Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { AppConfig } from '@app/config';
import { securityActivityActor } from '@app/domain';
import { ApiError } from '../common/api-error';
import { ErrorResponseDto } from '../common/error-response.dto';
import { Keyset, PageQuery } from '../common/pagination';
import { uuidPipe } from '../common/uuid.pipe';
import { PortalActivityRepository } from './portal-activity.repository';
import { PortalAuth, StaffArea } from './portal-session.guard';
import {
  InboxPageDto,
  InboxQueryDto,
  InboxReadDto,
  SecurityEventPageDto,
  UnreadCountDto,
} from './portal.dto';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Security activity (read by every portal user) and the institution's inbox. */
@ApiTags('Portal')
@StaffArea('account')
@Controller('portal/api')
export class PortalActivityController {
  constructor(
    private readonly activity: PortalActivityRepository,
    private readonly config: AppConfig,
  ) {}

  @Get('security-activity')
  @StaffArea('activity')
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalListSecurityActivity',
    summary:
      'Security activity, newest first: keys created and revoked, webhook secret and URL changes, logins',
    description:
      "What changed the institution's security: keys created and revoked, webhook URL and secret changes, widget settings, the holdout key, erasures, single sign-on settings, sign-ins. Read from the audit log (the operators' `GET /admin/api/v1/audit?institution_id=` shows the same entries): `actor` is the staff user's e-mail, `operator` for the service's operators, or `system`. Keyset paged.",
  })
  @ApiOkResponse({ type: SecurityEventPageDto })
  @ApiBadRequestResponse({
    description: 'Bad cursor or limit (`validation_failed`)',
    type: ErrorResponseDto,
  })
  async securityActivity(
    @Req() req: Request,
    @Query() q: PageQuery,
  ): Promise<SecurityEventPageDto> {
    const inst = req.portalUser!.institutionId;
    const keyset = new Keyset(this.config.keys, `portal:security:${inst}`);
    const after = keyset.decode(q.cursor);
    const limit = q.limit ?? 100;
    const rows = await this.activity.securityEvents(inst, after, limit);
    return keyset.page(rows, limit, (r) => ({
      id: r.id,
      type: r.action,
      actor: securityActivityActor(r),
      details: r.after ?? {},
      ip: r.ip,
      created_at: r.created_at.toISOString(),
    }));
  }

  @Get('inbox')
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalListInbox',
    summary:
      'Inbox messages (key expiry reminders, failed webhooks), newest first, with the unread count',
    description:
      "Messages for the institution's staff (API keys about to expire, webhooks that failed), newest first, with the unread count.",
  })
  @ApiOkResponse({ type: InboxPageDto })
  @ApiBadRequestResponse({
    description: 'Bad cursor, limit or unread flag (`validation_failed`)',
    type: ErrorResponseDto,
  })
  async inbox(@Req() req: Request, @Query() q: InboxQueryDto): Promise<InboxPageDto> {
    const inst = req.portalUser!.institutionId;
    const keyset = new Keyset(
      this.config.keys,
      `portal:inbox:${inst}:${q.unread ? 'unread' : 'all'}`,
    );
    const after = keyset.decode(q.cursor);
    const limit = q.limit ?? 100;
    const [rows, unread] = await Promise.all([
      this.activity.inbox(inst, !!q.unread, after, limit),
      this.activity.unreadCount(inst),
    ]);
    const page = keyset.page(rows, limit, (r) => ({
      id: r.id,
      kind: r.kind,
      title: r.title,
      body: r.body,
      read_at: iso(r.read_at),
      created_at: r.created_at.toISOString(),
    }));
    return { ...page, unread_count: unread };
  }

  @Get('inbox/unread-count')
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalInboxUnreadCount',
    summary: 'Number of unread inbox messages (for the navigation badge)',
    description: 'The number the navigation shows on the inbox link.',
  })
  @ApiOkResponse({ type: UnreadCountDto })
  async unread(@Req() req: Request): Promise<UnreadCountDto> {
    return { unread_count: await this.activity.unreadCount(req.portalUser!.institutionId) };
  }

  @Post('inbox/read-all')
  @HttpCode(200)
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalInboxReadAll',
    summary: 'Mark every inbox message read',
    description: 'Marks every message of the institution read.',
  })
  @ApiOkResponse({ type: UnreadCountDto })
  async readAll(@Req() req: Request): Promise<UnreadCountDto> {
    await this.activity.markAllRead(req.portalUser!.institutionId);
    return { unread_count: 0 };
  }

  @Post('inbox/:id/read')
  @HttpCode(200)
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalInboxRead',
    summary: 'Mark one inbox message read (idempotent)',
    description: 'Marks one message read; reading a message twice is not an error.',
  })
  @ApiOkResponse({ type: InboxReadDto })
  @ApiNotFoundResponse({ description: '`message_not_found`', type: ErrorResponseDto })
  async read(@Req() req: Request, @Param('id', uuidPipe) id: string): Promise<InboxReadDto> {
    const inst = req.portalUser!.institutionId;
    const readAt = await this.activity.markRead(inst, id);
    if (!readAt) throw ApiError.notFound('message_not_found', 'No such inbox message.');
    return {
      id,
      read_at: readAt.toISOString(),
      unread_count: await this.activity.unreadCount(inst),
    };
  }
}

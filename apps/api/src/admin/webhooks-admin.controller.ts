import { Body, Controller, HttpCode, HttpStatus, Param, Post, Req } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import type { AuditContext } from '@app/core';
import { ErrorResponseDto } from '../common/error-response.dto';
import { uuidPipe } from '../common/uuid.pipe';
import { StartReplayDto, TestEventAcceptedDto, WebhookReplayDto } from '../webhooks/webhooks.dto';
import { WebhookDeliveriesService } from '../webhooks/webhook-deliveries.service';
import { Audit, OperatorAuth } from './operator.guard';

/**
 * Operators act on an institution's webhook as its portal admins can (recorded as `operator` in
 * its security activity, and by name in the audit log). Support's routes.
 */
@ApiTags('Admin')
@OperatorAuth('support')
@ApiNotFoundResponse({
  description: 'No such institution (`institution_not_found`)',
  type: ErrorResponseDto,
})
@Controller('admin/api/v1/institutions/:id/webhook')
export class WebhooksAdminController {
  constructor(private readonly webhooks: WebhookDeliveriesService) {}

  @Post('test')
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({
    operationId: 'adminSendWebhookTest',
    summary: "Send a webhook.test event to an institution's URL now",
    description:
      'Queues one `webhook.test` delivery, signed like every event, so an operator can check an institution receives and verifies webhooks; 409 `webhook_not_configured` without a URL and secret.',
  })
  @ApiAcceptedResponse({ type: TestEventAcceptedDto })
  @ApiConflictResponse({ description: '`webhook_not_configured`', type: ErrorResponseDto })
  sendTest(
    @Req() req: Request,
    @Param('id', uuidPipe) id: string,
    @Audit() ctx: AuditContext,
  ): Promise<TestEventAcceptedDto> {
    return this.webhooks.sendTest(id, 'operator', req.ip, req.id as string | undefined, ctx);
  }

  @Post('replays')
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({
    operationId: 'adminStartWebhookReplay',
    summary: "Replay an institution's failed deliveries since a time",
    description: 'As the portal route: bounded (10,000), paced, with progress in the portal.',
  })
  @ApiAcceptedResponse({ type: WebhookReplayDto })
  @ApiBadRequestResponse({ description: '`validation_failed`', type: ErrorResponseDto })
  @ApiConflictResponse({
    description: '`replay_running` or `webhook_not_configured`',
    type: ErrorResponseDto,
  })
  startReplay(
    @Req() req: Request,
    @Param('id', uuidPipe) id: string,
    @Body() dto: StartReplayDto,
    @Audit() ctx: AuditContext,
  ): Promise<WebhookReplayDto> {
    return this.webhooks.startReplay(id, 'operator', dto, req.ip, ctx);
  }
}

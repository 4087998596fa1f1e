import {
  CallHandler,
  Controller,
  ExecutionContext,
  Get,
  HttpCode,
  HttpStatus,
  Injectable,
  NestInterceptor,
  Param,
  Post,
  Query,
  Req,
  UseInterceptors,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import multer from 'multer';
import { Observable } from 'rxjs';
import { ApiError } from '../common/api-error';
import { ErrorResponseDto } from '../common/error-response.dto';
import { PageQuery } from '../common/pagination';
import { uuidPipe } from '../common/uuid.pipe';
import { CsvUploadsService, MAX_UPLOAD_BYTES } from './csv-uploads.service';
import { PortalAuth, StaffArea } from './portal-session.guard';
import { UploadAcceptedDto, UploadDto, UploadPageDto } from './portal.dto';

const MIB = MAX_UPLOAD_BYTES / 1024 / 1024;

/**
 * Reads the multipart field `file` into memory with a size cap, and turns every multer failure into
 * the one error shape with a message a portal user can act on.
 */
@Injectable()
class CsvFileInterceptor implements NestInterceptor {
  private readonly single = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10, parts: 12 },
  }).single('file');

  async intercept(ctx: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const res = ctx.switchToHttp().getResponse<Response>();
    if (!req.is('multipart/form-data')) {
      throw ApiError.validation(
        [{ field: 'file', message: 'send the file as multipart/form-data in the field `file`' }],
        'No file in the request.',
      );
    }
    await new Promise<void>((resolve, reject) =>
      this.single(req, res, (err?: unknown) => {
        if (!err) return resolve();
        const code = (err as { code?: string }).code;
        if (code === 'LIMIT_FILE_SIZE') {
          return reject(
            new ApiError(
              HttpStatus.PAYLOAD_TOO_LARGE,
              'payload_too_large',
              `The file is larger than ${MIB} MiB. Split it into smaller files and upload them one by one.`,
            ),
          );
        }
        if (code === 'LIMIT_UNEXPECTED_FILE' || code === 'LIMIT_FILE_COUNT') {
          return reject(
            ApiError.validation(
              [{ field: 'file', message: 'send exactly one file, in the field `file`' }],
              'Unexpected file field.',
            ),
          );
        }
        reject(
          ApiError.validation(
            [{ field: 'file', message: 'the multipart body could not be read' }],
            'The upload could not be read.',
          ),
        );
      }),
    );
    return next.handle();
  }
}

@ApiTags('Portal')
@StaffArea('uploads')
@Controller('portal/api/transactions/uploads')
export class PortalUploadsController {
  constructor(private readonly uploads: CsvUploadsService) {}

  @Post()
  @HttpCode(HttpStatus.ACCEPTED)
  @PortalAuth()
  @UseInterceptors(CsvFileInterceptor)
  @ApiOperation({
    operationId: 'portalUploadTransactions',
    summary: 'Upload a CSV of transactions (Growth and Enterprise plans); processed by the worker',
    description:
      'Header row required; columns in any order and case: cardholder_token, card_token, card_acceptor_id (or merchant_id), amount, ' +
      `transaction_ref, transacted_at; unknown columns and institution_id are ignored. At most ${MIB} MiB. Poll GET …/uploads/{id} for progress.`,
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: { type: 'string', format: 'binary', description: 'The CSV file' },
        history: {
          type: 'string',
          enum: ['true', 'false'],
          default: 'false',
          example: 'true',
          description:
            'true: the rows are past purchases (for new/lapsed audiences and personalization), stored and deduplicated, never matched or rewarded',
        },
      },
    },
  })
  @ApiAcceptedResponse({ type: UploadAcceptedDto })
  @ApiBadRequestResponse({
    description: '`validation_failed`: no file, an empty file, or not multipart',
    type: ErrorResponseDto,
  })
  @ApiForbiddenResponse({
    description: '`plan_required` on the Starter plan (also `csrf_failed`)',
    type: ErrorResponseDto,
  })
  @ApiPayloadTooLargeResponse({
    description: `\`payload_too_large\`: the file is over ${MIB} MiB`,
    type: ErrorResponseDto,
  })
  upload(@Req() req: Request): Promise<UploadAcceptedDto> {
    const file = req.file;
    if (!file)
      throw ApiError.validation(
        [{ field: 'file', message: 'is required' }],
        'No file in the request.',
      );
    const history = (req.body as { history?: unknown } | undefined)?.history;
    if (history !== undefined && history !== 'true' && history !== 'false')
      throw ApiError.validation([{ field: 'history', message: 'must be true or false' }]);
    const p = req.portalUser!;
    return this.uploads.create(
      { institutionId: p.institutionId, userId: p.userId, plan: p.plan },
      file,
      String(req.id),
      history === 'true',
    );
  }

  @Get()
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalListUploads',
    summary: 'Upload history, newest first',
    description: 'CSV uploads of the institution with their status and counts, newest first.',
  })
  @ApiOkResponse({ type: UploadPageDto })
  @ApiBadRequestResponse({
    description: 'Bad cursor or limit (`validation_failed`)',
    type: ErrorResponseDto,
  })
  list(@Req() req: Request, @Query() q: PageQuery): Promise<UploadPageDto> {
    return this.uploads.list(req.portalUser!.institutionId, q.limit ?? 100, q.cursor);
  }

  @Get(':id')
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalGetUpload',
    summary: 'Progress and result of an upload, with refused rows by line number',
    description:
      'Progress of one CSV upload and, when done, the refused rows with their line numbers and reasons.',
  })
  @ApiOkResponse({ type: UploadDto })
  @ApiNotFoundResponse({ description: '`upload_not_found`', type: ErrorResponseDto })
  get(@Req() req: Request, @Param('id', uuidPipe) id: string): Promise<UploadDto> {
    return this.uploads.get(req.portalUser!.institutionId, id);
  }
}

import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';
import { PaginationDto } from '../common/pagination';

/** A keyset page of `item`: `{ data: item[], pagination }`. */
export function ApiPageResponse(item: Type<unknown>) {
  return applyDecorators(
    ApiExtraModels(item, PaginationDto),
    ApiOkResponse({
      schema: {
        type: 'object',
        required: ['data', 'pagination'],
        properties: {
          data: { type: 'array', items: { $ref: getSchemaPath(item) } },
          pagination: { $ref: getSchemaPath(PaginationDto) },
        },
        example: { data: [], pagination: { limit: 100, next_cursor: null } },
      },
    }),
  );
}

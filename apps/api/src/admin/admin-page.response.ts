import { ApiOkResponse } from '@nestjs/swagger';

/** 200 for the operators' lists: a keyset page (`data`, `pagination`), its example an empty page. */
export function ApiPageResponse() {
  return ApiOkResponse({
    schema: { example: { data: [], pagination: { limit: 100, next_cursor: null } } },
  });
}

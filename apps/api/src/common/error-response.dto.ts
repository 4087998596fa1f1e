import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ErrorDetailDto {
  @ApiProperty({ example: 'amount' }) field: string;
  @ApiProperty({ example: 'must be a number' }) message: string;
}

/** The one error body of every API. */
export class ErrorResponseDto {
  @ApiProperty({ example: 'validation_failed', description: 'snake_case error code' })
  error: string;
  @ApiProperty({ example: 'The request is invalid.' }) message: string;
  @ApiPropertyOptional({ type: [ErrorDetailDto] }) details?: ErrorDetailDto[];
  @ApiProperty({ example: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21' }) request_id: string;
}

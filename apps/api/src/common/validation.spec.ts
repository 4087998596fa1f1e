import { ArgumentMetadata } from '@nestjs/common';
import { AddOfferDto, FeedQueryDto } from '../offers/offers.dto';
import { ApiError } from './api-error';
import { createValidationPipe } from './validation';

async function detailsOf(metatype: ArgumentMetadata['metatype'], value: unknown) {
  try {
    await createValidationPipe().transform(value, { type: 'query', metatype });
  } catch (e) {
    return ((e as ApiError).getResponse() as { details: unknown[] }).details;
  }
  throw new Error('expected a validation error');
}

describe('validation messages', () => {
  it.each([
    ['the feed', FeedQueryDto],
    ['an add', AddOfferDto],
  ])('a missing cardholder_token on %s says only that it is required', async (_, dto) => {
    expect(await detailsOf(dto, {})).toEqual([
      { field: 'cardholder_token', message: 'cardholder_token is required' },
    ]);
  });

  it('a present but bad cardholder_token still names the broken rule', async () => {
    expect(await detailsOf(FeedQueryDto, { cardholder_token: 'a\u0001b' })).toEqual([
      {
        field: 'cardholder_token',
        message: 'cardholder_token must not contain control characters',
      },
    ]);
  });
});

import { LOCALES, SORT_ORDERS } from './offer-feed';
import { PROGRAM_DEFAULTS } from './program-defaults';

describe('program defaults', () => {
  it('are values the program accepts', () => {
    expect(PROGRAM_DEFAULTS.supportedLocales.every((l) => LOCALES.includes(l))).toBe(true);
    expect(SORT_ORDERS).toContain(PROGRAM_DEFAULTS.sortOrder);
    expect(PROGRAM_DEFAULTS.widgetFeedLimit).toBeGreaterThanOrEqual(1);
    expect(PROGRAM_DEFAULTS.widgetFeedLimit).toBeLessThanOrEqual(100);
    expect(Number(PROGRAM_DEFAULTS.serviceShareRate)).toBeGreaterThanOrEqual(0);
    expect(Number(PROGRAM_DEFAULTS.serviceShareRate)).toBeLessThanOrEqual(1);
  });

  it('an institution without a program: English first, featured order, half the fee to the service', () => {
    expect(PROGRAM_DEFAULTS).toEqual({
      supportedLocales: ['en'],
      sortOrder: 'featured',
      maxActiveOffers: 10,
      widgetFeedLimit: 20,
      serviceShareRate: '0.5',
      settlementHoldDays: 30,
      claimWindowDays: 90,
    });
  });
});

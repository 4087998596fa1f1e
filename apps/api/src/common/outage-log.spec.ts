import { OutageLog } from './outage-log';

describe('OutageLog: one warning per outage, not one per request', () => {
  it('warns on the first failure, counts the rest, and logs the recovery once', () => {
    const lines: string[] = [];
    let t = 1_000;
    const log = new OutageLog(
      {
        warn: (_o, m) => lines.push(`warn ${m}`),
        log: (o, m) => lines.push(`log ${m} ${JSON.stringify(o)}`),
      },
      'rate limiter (Redis)',
      () => t,
    );
    log.ok();
    for (let i = 0; i < 1_842; i++) log.failed(new Error('ECONNREFUSED'));
    expect(log.down).toBe(true);
    t = 6_000;
    log.ok();
    log.ok();
    log.failed(new Error('again'));
    expect(lines).toEqual([
      'warn rate limiter (Redis) unavailable; requests are not rate limited until it is back (logged once per outage)',
      'log rate limiter (Redis) available again {"downMs":5000,"requestsNotLimited":1842}',
      'warn rate limiter (Redis) unavailable; requests are not rate limited until it is back (logged once per outage)',
    ]);
  });
});

import fc from 'fast-check';
import {
  addDays,
  addSums,
  chainPeriods,
  dayIn,
  monthEnd,
  MovementSums,
  NO_MOVEMENTS,
  periodOf,
  statementFigures,
  statementId,
  withMovement,
} from './statements';

describe('statement figures', () => {
  it('pending_opening + earned − reversed − settled = pending_closing; net_payout = settled − clawed_back', () => {
    const f = statementFigures(1000, {
      earned: 500,
      reversed: 100,
      settled: 700,
      clawback: 50,
      count: 6,
    });
    expect(f).toEqual({
      pending_opening: 1000,
      earned: 500,
      reversed: 100,
      settled: 700,
      pending_closing: 700,
      clawed_back: 50,
      net_payout: 650,
      movement_count: 6,
    });
  });

  it('a period opens with the previous one’s pending_closing', () => {
    const [d1, d2] = chainPeriods(100, [
      withMovement(NO_MOVEMENTS, 'earned', 40),
      withMovement(NO_MOVEMENTS, 'settled', 90),
    ]);
    expect(d1.pending_closing).toBe(140);
    expect(d2.pending_opening).toBe(140);
    expect(d2.pending_closing).toBe(50);
  });

  // Random histories: entries are earned, some settle, some are reversed before or after settling;
  // each event lands on one of 31 days. The day statements, chained, end at the pending balance
  // the entries really have; the month is exactly its days; every identity holds.
  it('ties out over random histories (property)', () => {
    const entry = fc.record({
      payout: fc.integer({ min: 0, max: 1_000_000 }),
      clawback: fc.integer({ min: 0, max: 1_000_000 }),
      fate: fc.constantFrom('pending', 'settled', 'reversed', 'clawed_back'),
      days: fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 3, maxLength: 3 }),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.array(entry, { maxLength: 60 }),
        (opening, entries) => {
          const days: MovementSums[] = Array.from({ length: 31 }, () => NO_MOVEMENTS);
          let pendingAtEnd = opening;
          let settledTotal = 0;
          let clawedTotal = 0;
          for (const e of entries) {
            const [a, b, c] = [...e.days].sort((x, y) => x - y);
            days[a] = withMovement(days[a], 'earned', e.payout);
            if (e.fate === 'pending') pendingAtEnd += e.payout;
            if (e.fate === 'reversed') days[b] = withMovement(days[b], 'reversed', e.payout);
            if (e.fate === 'settled' || e.fate === 'clawed_back') {
              days[b] = withMovement(days[b], 'settled', e.payout);
              settledTotal += e.payout;
            }
            if (e.fate === 'clawed_back') {
              days[c] = withMovement(days[c], 'clawback', e.clawback);
              clawedTotal += e.clawback;
            }
          }
          const chained = chainPeriods(opening, days);
          const month = statementFigures(opening, days.reduce(addSums, NO_MOVEMENTS));
          for (const f of [...chained, month]) {
            expect(f.pending_opening + f.earned - f.reversed - f.settled).toBe(f.pending_closing);
            expect(f.settled - f.clawed_back).toBe(f.net_payout);
          }
          expect(chained[30].pending_closing).toBe(pendingAtEnd);
          expect(month.pending_closing).toBe(chained[30].pending_closing);
          expect(month.pending_opening).toBe(chained[0].pending_opening);
          expect(month.net_payout).toBe(settledTotal - clawedTotal);
          for (const k of [
            'earned',
            'reversed',
            'settled',
            'clawed_back',
            'movement_count',
          ] as const)
            expect(month[k]).toBe(chained.reduce((s, d) => s + d[k], 0));
        },
      ),
    );
  });
});

describe('statement periods', () => {
  it('a month runs from its first to its last calendar day', () => {
    expect(periodOf('month', '2024-02-14')).toEqual(['2024-02-01', '2024-02-29']);
    expect(periodOf('month', '2026-12-31')).toEqual(['2026-12-01', '2026-12-31']);
    expect(periodOf('day', '2026-11-26')).toEqual(['2026-11-26', '2026-11-26']);
    expect(monthEnd('2025-02-01')).toBe('2025-02-28');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
  });

  it('a day is the calendar day in the program’s time zone', () => {
    const at = new Date('2026-11-26T02:30:00Z');
    expect(dayIn(at, 'UTC')).toBe('2026-11-26');
    expect(dayIn(at, 'America/Sao_Paulo')).toBe('2026-11-25');
    expect(dayIn(at, 'Asia/Tokyo')).toBe('2026-11-26');
  });

  it('a period’s id is the same for the same institution, currency, granularity and start', () => {
    const inst = '8d3f0c1e-4a55-4c1b-9d2e-3f4a5b6c7d8e';
    const id = statementId(inst, 'USD', 'day', '2026-11-26');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(statementId(inst.toUpperCase(), 'USD', 'day', '2026-11-26')).toBe(id);
    expect(statementId(inst, 'EUR', 'day', '2026-11-26')).not.toBe(id);
    expect(statementId(inst, 'USD', 'month', '2026-11-26')).not.toBe(id);
    expect(statementId(inst, 'USD', 'day', '2026-11-27')).not.toBe(id);
  });
});

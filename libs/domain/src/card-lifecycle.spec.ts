import { readFileSync } from 'fs';
import { join } from 'path';
import {
  authorizationExpired,
  ChainEvent,
  clearedTotal,
  ChainState,
  chainEvents,
  chainStep,
  clearingKeepsReward,
  compareChainRecords,
  foldChain,
  lifecycleTable,
} from './card-lifecycle';

describe('card lifecycle, reward_on = clearing (default)', () => {
  it.each([
    ['none', 'authorization', 'authorized', 'record'],
    ['authorized', 'clearing', 'cleared', 'decide'],
    ['none', 'clearing', 'cleared', 'decide'],
    ['cleared', 'authorization', 'cleared', 'ignore'],
    ['cleared', 'clearing', 'cleared', 'confirm'],
    ['authorized', 'authorization_reversal', 'voided', 'ignore'],
    ['cleared', 'authorization_reversal', 'cleared', 'ignore'],
    ['authorized', 'expiry', 'expired', 'ignore'],
    ['voided', 'clearing', 'cleared', 'decide'],
    ['expired', 'clearing', 'cleared', 'decide'],
  ] as const)('%s + %s → %s (%s)', (state, event, next, action) => {
    expect(chainStep('clearing', state, event)).toEqual({ next, action });
  });
});

describe('card lifecycle, reward_on = authorization', () => {
  it.each([
    ['none', 'authorization', 'authorized', 'decide'],
    ['authorized', 'clearing', 'cleared', 'confirm'],
    ['none', 'clearing', 'cleared', 'decide'],
    ['authorized', 'authorization_reversal', 'voided', 'reverse'],
    ['authorized', 'expiry', 'expired', 'reverse'],
    ['cleared', 'authorization_reversal', 'cleared', 'ignore'],
    ['cleared', 'authorization', 'cleared', 'ignore'],
    ['cleared', 'clearing', 'cleared', 'confirm'],
    ['voided', 'clearing', 'cleared', 'decide'],
  ] as const)('%s + %s → %s (%s)', (state, event, next, action) => {
    expect(chainStep('authorization', state, event)).toEqual({ next, action });
  });
});

describe('one reward per chain, whatever the order', () => {
  const decisions = (rewardOn: 'clearing' | 'authorization', events: string[]) => {
    let state = 'none' as Parameters<typeof chainStep>[1];
    let live = 0;
    let max = 0;
    for (const e of events) {
      const step = chainStep(rewardOn, state, e as Parameters<typeof chainStep>[2]);
      if (step.action === 'decide') live++;
      if (step.action === 'reverse') live = Math.max(0, live - 1);
      max = Math.max(max, live);
      state = step.next;
    }
    return { live, max };
  };
  const orders = [
    ['authorization', 'clearing'],
    ['clearing', 'authorization'],
    ['authorization', 'authorization_reversal', 'clearing'],
    ['authorization', 'clearing', 'authorization_reversal'],
    ['authorization', 'expiry', 'clearing'],
    ['authorization', 'clearing', 'clearing'],
  ];
  it.each(orders.flatMap((o) => [['clearing', o] as const, ['authorization', o] as const]))(
    'reward_on %s, %j: at most one live reward',
    (rewardOn, order) => {
      expect(decisions(rewardOn, [...order]).max).toBeLessThanOrEqual(1);
    },
  );
  it('every state has an outcome for every record', () => {
    expect(lifecycleTable('clearing')).toHaveLength(20);
    expect(lifecycleTable('authorization')).toHaveLength(20);
  });
});

describe('authorization expiry and the clearing check', () => {
  it('expires authorization_expiry_days after the swipe', () => {
    const at = new Date('2026-06-01T00:00:00Z');
    expect(authorizationExpired(at, 7, new Date('2026-06-07T23:59:59Z'))).toBe(false);
    expect(authorizationExpired(at, 7, new Date('2026-06-08T00:00:00Z'))).toBe(true);
  });
  it('the clearing keeps the reward only when it earns the same one', () => {
    expect(
      clearingKeepsReward({ offerId: 'a', cashback: 500 }, { offerId: 'a', cashback: 500 }),
    ).toBe(true);
    expect(
      clearingKeepsReward({ offerId: 'a', cashback: 500 }, { offerId: 'a', cashback: 400 }),
    ).toBe(false);
    expect(clearingKeepsReward({ offerId: 'a', cashback: 500 }, null)).toBe(false);
    expect(clearingKeepsReward(null, null)).toBe(true);
  });
});

describe('an authorization sent after its expiry', () => {
  const now = new Date('2026-06-10T00:00:00Z');
  const auth = (transactedAt: string) => ({
    id: 'a',
    kind: 'authorization' as const,
    transactedAt: new Date(transactedAt),
  });
  const clearing = { id: 'c', kind: 'clearing' as const, transactedAt: now };

  it('is followed by its expiry: never rewarded at the swipe, its clearing still decides', () => {
    const events = chainEvents([auth('2026-06-02T00:00:00Z'), clearing], 7, now);
    expect(events.map((e) => e.event)).toEqual(['authorization', 'expiry', 'clearing']);
    expect(foldChain('authorization', 'none', false, events.slice(0, 2))).toEqual({
      state: 'expired',
      decide: null,
      stored: 'keep',
    });
    expect(foldChain('authorization', 'none', false, events)).toMatchObject({
      state: 'cleared',
      decide: 'c',
    });
  });

  it('inside its expiry window it is decided as sent', () => {
    const events = chainEvents([auth('2026-06-04T00:00:00Z')], 7, now);
    expect(events).toEqual([{ id: 'a', event: 'authorization' }]);
    expect(foldChain('authorization', 'none', false, events).decide).toBe('a');
  });
});

describe('foldChain: the records of one chain in one pass', () => {
  const ev = (id: string | null, event: ChainEvent) => ({ id, event });

  it('reward_on=clearing: the authorization is recorded, its clearing decides', () => {
    expect(foldChain('clearing', 'none', false, [ev('a', 'authorization')])).toEqual({
      state: 'authorized',
      decide: null,
      stored: 'keep',
    });
    expect(foldChain('clearing', 'authorized', false, [ev('c', 'clearing')])).toEqual({
      state: 'cleared',
      decide: 'c',
      stored: 'keep',
    });
  });

  it('reward_on=authorization: the authorization decides, the clearing reconsiders it', () => {
    expect(foldChain('authorization', 'none', false, [ev('a', 'authorization')])).toEqual({
      state: 'authorized',
      decide: 'a',
      stored: 'keep',
    });
    expect(foldChain('authorization', 'authorized', true, [ev('c', 'clearing')])).toEqual({
      state: 'cleared',
      decide: 'c',
      stored: 'reconsider',
    });
  });

  it('an authorization that earned nothing: its clearing decides anew', () => {
    expect(foldChain('authorization', 'authorized', false, [ev('c', 'clearing')])).toEqual({
      state: 'cleared',
      decide: 'c',
      stored: 'keep',
    });
  });

  it('a void or an expiry reverses the live redemption; nothing is decided', () => {
    for (const event of ['authorization_reversal', 'expiry'] as const)
      expect(foldChain('authorization', 'authorized', true, [ev(null, event)])).toMatchObject({
        decide: null,
        stored: 'reverse',
        reversedBy: { id: null, event },
      });
  });

  it('authorization and clearing in one chunk: only the clearing decides (one webhook)', () => {
    expect(
      foldChain('authorization', 'none', false, [ev('a', 'authorization'), ev('c', 'clearing')]),
    ).toEqual({ state: 'cleared', decide: 'c', stored: 'keep' });
  });

  it('authorization and void in one chunk: nothing at all', () => {
    expect(
      foldChain('authorization', 'none', false, [
        ev('a', 'authorization'),
        ev('v', 'authorization_reversal'),
      ]),
    ).toEqual({ state: 'voided', decide: null, stored: 'keep' });
  });

  it('a void after the clearing changes nothing', () => {
    expect(
      foldChain('authorization', 'cleared', true, [ev('v', 'authorization_reversal')]),
    ).toEqual({ state: 'cleared', decide: null, stored: 'keep' });
  });

  it('a void then a clearing: the redemption is reversed and the clearing decides', () => {
    expect(
      foldChain('authorization', 'authorized', true, [
        ev('v', 'authorization_reversal'),
        ev('c', 'clearing'),
      ]),
    ).toEqual({
      state: 'cleared',
      decide: 'c',
      stored: 'reverse',
      reversedBy: { id: 'v', event: 'authorization_reversal' },
    });
  });

  it('a live redemption is never rewarded twice, even when reward_on changed in between', () => {
    expect(foldChain('clearing', 'authorized', true, [ev('c', 'clearing')])).toMatchObject({
      decide: 'c',
      stored: 'reconsider',
    });
  });
});

describe('a second clearing of the same authorization', () => {
  const ev = (id: string | null, event: ChainEvent) => ({ id, event });

  it.each(['clearing', 'authorization'] as const)(
    'reward_on=%s: the chain is re-decided on it (confirm): its live reward is reconsidered',
    (rewardOn) => {
      expect(foldChain(rewardOn, 'cleared', true, [ev('c2', 'clearing')])).toEqual({
        state: 'cleared',
        decide: 'c2',
        stored: 'reconsider',
      });
    },
  );

  it('a chain that earned nothing at its first clearing is decided on the total', () => {
    expect(foldChain('clearing', 'cleared', false, [ev('c2', 'clearing')])).toEqual({
      state: 'cleared',
      decide: 'c2',
      stored: 'keep',
    });
  });

  it('two clearings in one chunk: the latest decides', () => {
    expect(
      foldChain('clearing', 'authorized', false, [ev('c1', 'clearing'), ev('c2', 'clearing')]),
    ).toEqual({ state: 'cleared', decide: 'c2', stored: 'keep' });
  });

  it('adds its amount to what the chain cleared before; after a void or an expiry it starts anew', () => {
    expect(clearedTotal('cleared', '40.0000', ['60'])).toBe('100');
    expect(clearedTotal('authorized', null, ['40', '60.25'])).toBe('100.25');
    expect(clearedTotal('voided', '12', ['30'])).toBe('30');
  });
});

describe('records of one chain in one chunk', () => {
  it('are taken by transacted_at, then authorization, clearing, void', () => {
    const at = new Date('2026-11-21T10:00:00Z');
    const later = new Date('2026-11-22T10:00:00Z');
    const rows = [
      { id: '1', kind: 'authorization_reversal' as const, transactedAt: at },
      { id: '2', kind: 'clearing' as const, transactedAt: at },
      { id: '3', kind: 'authorization' as const, transactedAt: later },
      { id: '4', kind: 'authorization' as const, transactedAt: at },
    ];
    expect([...rows].sort(compareChainRecords).map((r) => r.id)).toEqual(['4', '2', '1', '3']);
  });
});

describe('docs/transactions.md', () => {
  it('shows the state table as the code has it, for both reward_on values', () => {
    const doc = readFileSync(join(__dirname, '../../../docs/transactions.md'), 'utf8');
    const rows = doc
      .split('\n')
      .map((l) => /^\| (\w+) \| (\w+) \| (\w+) · (\w+) \| (\w+) · (\w+) \|$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => m.slice(1).join(' '));
    const clearing = lifecycleTable('clearing');
    const authorization = lifecycleTable('authorization');
    expect(rows).toEqual(
      clearing.map(([state, event, c], i) =>
        [state, event, c.next, c.action, authorization[i][2].next, authorization[i][2].action].join(
          ' ',
        ),
      ),
    );
  });
});

describe('foldChain: the step each record takes (simulate)', () => {
  const heard = (
    rewardOn: 'clearing' | 'authorization',
    state: ChainState,
    events: { id: string | null; event: ChainEvent }[],
  ) => {
    const out: Record<string, string> = {};
    foldChain(rewardOn, state, false, events, (id, action) => (out[id] = action));
    return out;
  };

  it('each record its step of the table', () => {
    expect(heard('clearing', 'none', [{ id: 'a', event: 'authorization' }])).toEqual({
      a: 'record',
    });
    expect(heard('authorization', 'authorized', [{ id: 'c', event: 'clearing' }])).toEqual({
      c: 'confirm',
    });
    expect(heard('clearing', 'authorized', [{ id: 'v', event: 'authorization_reversal' }])).toEqual(
      { v: 'ignore' },
    );
  });

  it('an authorization folded with its own expiry (sent after it) is ignored, whatever reward_on', () => {
    const late = [
      { id: 'a', event: 'authorization' as const },
      { id: null, event: 'expiry' as const },
    ];
    expect(heard('authorization', 'none', late)).toEqual({ a: 'ignore' });
    expect(heard('clearing', 'none', late)).toEqual({ a: 'ignore' });
  });
});

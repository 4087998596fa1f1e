import { winnerOf } from './winner';

const c = (offerId: string, payout: number, priority = 0) => ({
  offerId,
  priority,
  reward: { institutionPayout: payout },
});

describe('which offer wins a purchase', () => {
  it('the highest institution payout for that purchase wins', () => {
    expect(winnerOf([c('a', 300), c('b', 500), c('c', 400)])?.offerId).toBe('b');
  });
  it('on equal payout, the higher priority wins', () => {
    expect(winnerOf([c('a', 500, 1), c('b', 500, 5)])?.offerId).toBe('b');
  });
  it('on equal payout and priority, the lower offer id wins', () => {
    expect(winnerOf([c('b', 500, 1), c('a', 500, 1)])?.offerId).toBe('a');
  });
  it('payout outranks priority', () => {
    expect(winnerOf([c('a', 499, 9), c('b', 500, 0)])?.offerId).toBe('b');
  });
  it('no contender, no winner', () => {
    expect(winnerOf([])).toBeNull();
  });
});

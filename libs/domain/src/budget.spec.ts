import { budgetTakes, hasBudgetForOneMore } from './budget';

describe('budget left', () => {
  it('an unlimited budget takes any redemption', () => {
    expect(budgetTakes({ budgetTotal: null, budgetUsed: 1e12 }, 1e9)).toBe(true);
  });

  it('a redemption fits while used + merchant funded stays at or below the total', () => {
    expect(budgetTakes({ budgetTotal: 1000, budgetUsed: 400 }, 600)).toBe(true);
    expect(budgetTakes({ budgetTotal: 1000, budgetUsed: 401 }, 600)).toBe(false);
  });

  it('one more redemption: the largest it can cost, cashback cap plus fee', () => {
    const o = { cashbackAmount: 500, merchantFeeAmount: 100 };
    expect(hasBudgetForOneMore({ ...o, budgetTotal: null, budgetUsed: 1e9 })).toBe(true);
    expect(hasBudgetForOneMore({ ...o, budgetTotal: 10_000, budgetUsed: 9_400 })).toBe(true);
    expect(hasBudgetForOneMore({ ...o, budgetTotal: 10_000, budgetUsed: 9_401 })).toBe(false);
    expect(hasBudgetForOneMore({ ...o, budgetTotal: 599, budgetUsed: 0 })).toBe(false);
  });
});

import { DAY_MS, TRANSACTED_AT_FUTURE_TOLERANCE_MS } from '@app/domain';
import { HISTORY_DAYS, PERSONALIZED_CARDHOLDER_SQL } from './offer-statements';

describe("personalization's history window", () => {
  it('prunes months by received_at no further than ingestion allows a purchase to precede its receipt', () => {
    // A purchase transacted in the window was received at most the future tolerance before it;
    // a tighter received_at bound would drop such purchases from the history.
    const boundDays = HISTORY_DAYS + TRANSACTED_AT_FUTURE_TOLERANCE_MS / DAY_MS;
    expect(PERSONALIZED_CARDHOLDER_SQL).toContain(
      `t.transacted_at >= now() - interval '${HISTORY_DAYS} days'`,
    );
    expect(PERSONALIZED_CARDHOLDER_SQL).toContain(
      `t.received_at >= now() - interval '${boundDays} days'`,
    );
  });
});

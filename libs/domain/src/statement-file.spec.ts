import { formatAmount, STATEMENT_FILE_HEADER, statementFileRow, textCell } from './statement-file';

describe('statement lines file', () => {
  it('writes amounts with exactly the currency’s decimals', () => {
    expect(formatAmount(450, 'USD')).toBe('4.50');
    expect(formatAmount(5, 'USD')).toBe('0.05');
    expect(formatAmount(1000, 'JPY')).toBe('1000');
    expect(formatAmount(1250, 'BHD')).toBe('1.250');
    expect(formatAmount(0, 'EUR')).toBe('0.00');
  });

  it('never lets a spreadsheet run a text cell as a formula', () => {
    for (const v of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])
      expect(textCell(v).replace(/^"/, '')).toMatch(/^'/);
    expect(textCell('Green Grocer')).toBe('Green Grocer');
    expect(textCell('tx-1')).toBe('tx-1');
  });

  it('quotes only the cells that need it', () => {
    expect(textCell('Smith, Jones & "Co"')).toBe('"Smith, Jones & ""Co"""');
    expect(textCell('two\nlines')).toBe('"two\nlines"');
  });

  it('is RFC 4180 with CRLF after every row and the header', () => {
    expect(STATEMENT_FILE_HEADER).toBe(
      'movement_id,type,booked_at,redemption_id,offer_id,merchant_name,transaction_ref,amount,currency,source\r\n',
    );
    expect(
      statementFileRow({
        movement_id: 'm1',
        type: 'earned',
        booked_at: '2026-11-26T10:00:00.000Z',
        redemption_id: 'r1',
        offer_id: 'o1',
        merchant_name: '=HYPERLINK("x")',
        transaction_ref: 'tx,1',
        amount: 450,
        currency: 'USD',
        source: 'matching',
      }),
    ).toBe(
      `m1,earned,2026-11-26T10:00:00.000Z,r1,o1,"'=HYPERLINK(""x"")","tx,1",4.50,USD,matching\r\n`,
    );
  });
});

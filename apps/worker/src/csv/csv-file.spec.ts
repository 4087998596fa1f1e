import {
  CsvFileError,
  CsvRecord,
  decodeCsv,
  estimateRows,
  readCsv,
  readHeader,
  rowToEvent,
} from './csv-file';

async function all(text: string): Promise<CsvRecord[]> {
  const out: CsvRecord[] = [];
  for await (const r of readCsv(text)) out.push(r);
  return out;
}

describe('CSV file reading', () => {
  it('drops a BOM and turns CRLF and CR into LF', () => {
    expect(decodeCsv(Buffer.from('\uFEFFa,b\r\n1,2\r3,4\n'))).toBe('a,b\n1,2\n3,4\n');
  });

  it('refuses binary files, ZIP-based spreadsheets and invalid UTF-8 with a clear message', () => {
    expect(() => decodeCsv(Buffer.from([0x41, 0x00, 0x42]))).toThrow(/not a CSV text file/);
    expect(() => decodeCsv(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14]))).toThrow(
      /spreadsheet or ZIP/,
    );
    expect(() => decodeCsv(Buffer.from([0x61, 0xff, 0xfe, 0x62]))).toThrow(/not valid UTF-8/);
  });

  it('numbers physical lines (header = 1), reports blank lines, keeps quoted fields spanning lines as one record', async () => {
    const recs = await all(
      decodeCsv(Buffer.from('h1,h2\r\n1,2\r\n\r\n  ,\r\n"x\r\ny",3\r\n5,"bad"q\r\n7,8')),
    );
    expect(recs).toEqual([
      { line: 1, blank: false, fields: ['h1', 'h2'] },
      { line: 2, blank: false, fields: ['1', '2'] },
      { line: 3, blank: true },
      { line: 4, blank: true },
      { line: 5, blank: false, fields: ['x\ny', '3'] },
      { line: 7, blank: false, fields: ['5', '"bad"q'] },
      { line: 8, blank: false, fields: ['7', '8'] },
    ]);
  });

  it('a trailing newline adds no line; an unclosed quote is reported at its line', async () => {
    const recs = await all('a\n1\n"2\n3\n');
    expect(recs[0]).toEqual({ line: 1, blank: false, fields: ['a'] });
    expect(recs[1]).toEqual({ line: 2, blank: false, fields: ['1'] });
    expect(recs[2]).toMatchObject({
      line: 3,
      blank: false,
      error: expect.stringMatching(/never closed/),
    });
    expect(recs).toHaveLength(3);
  });

  it('matches header names in any case and order, ignores unknown columns and institution_id', () => {
    const h = readHeader([
      'Amount',
      ' TRANSACTION_REF ',
      'institution_id',
      'cardholder_token',
      'Card_Token',
      'notes',
      'card_acceptor_id',
      'transacted_at',
    ]);
    expect(h.fields).toEqual([
      'amount',
      'transaction_ref',
      null,
      'cardholder_token',
      'card_token',
      null,
      'card_acceptor_id',
      'transacted_at',
    ]);
    expect(h.ignored).toEqual(['institution_id', 'notes']);
    expect(
      readHeader([
        'cardholder_token',
        'card_token',
        'merchant_id',
        'amount',
        'transaction_ref',
        'transacted_at',
      ]).fields,
    ).toContain('merchant_id');
  });

  it('refuses a missing header, missing columns and repeated columns', () => {
    expect(() =>
      readHeader(['tok_1', 'card_1', 'CA1', '25.00', 'ref-1', '2026-11-20T10:00:00Z']),
    ).toThrow(/header row naming the columns/);
    expect(() => readHeader(['cardholder_token', 'amount'])).toThrow(
      /lacks the columns card_token, card_acceptor_id \(or merchant_id\), transaction_ref, transacted_at/,
    );
    expect(() =>
      readHeader([
        'cardholder_token',
        'card_token',
        'card_acceptor_id',
        'amount',
        'amount',
        'transaction_ref',
        'transacted_at',
      ]),
    ).toThrow(CsvFileError);
  });

  it('turns a row into the API event: empty cells absent, decimal amounts numbers, anything else left for validation', () => {
    const h = readHeader([
      'cardholder_token',
      'card_token',
      'card_acceptor_id',
      'amount',
      'transaction_ref',
      'transacted_at',
      'institution_id',
    ]);
    expect(
      rowToEvent(h, ['tok', 'card', 'CA1', ' 25.50 ', 'r1', '2026-11-20T10:00:00Z', 'x']),
    ).toEqual({
      cardholder_token: 'tok',
      card_token: 'card',
      card_acceptor_id: 'CA1',
      amount: 25.5,
      transaction_ref: 'r1',
      transacted_at: '2026-11-20T10:00:00Z',
    });
    expect(rowToEvent(h, ['tok', '', 'CA1', '1e3'])).toEqual({
      cardholder_token: 'tok',
      card_acceptor_id: 'CA1',
      amount: '1e3',
    });
  });

  it('estimates data rows for the progress bar', () => {
    expect(estimateRows('\nh\n1\n\n2\n')).toBe(2);
  });
});

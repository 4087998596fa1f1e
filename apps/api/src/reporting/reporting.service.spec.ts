import { splitWindow } from './reporting.service';

describe('splitWindow', () => {
  const H = 3_600_000;
  const d = (s: string) => new Date(s);

  it('whole hours inside, partial hours at the edges', () => {
    expect(splitWindow(d('2026-11-01T10:15:00Z'), d('2026-11-01T13:30:00Z'), H)).toEqual({
      wholeFrom: d('2026-11-01T11:00:00Z'),
      wholeTo: d('2026-11-01T13:00:00Z'),
      headTo: d('2026-11-01T11:00:00Z'),
      tailFrom: d('2026-11-01T13:00:00Z'),
    });
  });

  it('aligned bounds leave empty edges', () => {
    const w = splitWindow(d('2026-11-01T10:00:00Z'), d('2026-11-01T12:00:00Z'), H);
    expect(w.wholeFrom).toEqual(d('2026-11-01T10:00:00Z'));
    expect(w.wholeTo).toEqual(d('2026-11-01T12:00:00Z'));
    expect(w.headTo).toEqual(w.wholeFrom);
    expect(w.tailFrom).toEqual(w.wholeTo);
  });

  it('a window inside one bucket is all raw edge', () => {
    const end = d('2026-11-01T10:50:00Z');
    expect(splitWindow(d('2026-11-01T10:10:00Z'), end, H)).toEqual({
      wholeFrom: end,
      wholeTo: end,
      headTo: end,
      tailFrom: end,
    });
    const end2 = d('2026-11-02T00:10:00Z');
    expect(splitWindow(d('2026-11-01T23:50:00Z'), end2, H).wholeFrom).toEqual(end2); // spans a boundary, no whole hour
  });

  it('days', () => {
    const w = splitWindow(d('2026-11-01T10:00:00Z'), d('2026-11-04T01:00:00Z'), 24 * H);
    expect(w.wholeFrom).toEqual(d('2026-11-02T00:00:00Z'));
    expect(w.wholeTo).toEqual(d('2026-11-04T00:00:00Z'));
  });
});

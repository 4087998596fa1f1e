import { checkCustomHeaders } from './webhook-custom-headers';

describe('custom webhook headers', () => {
  it('accepts up to five well-formed headers', () => {
    const five = Array.from({ length: 5 }, (_, i) => ({ name: `X-Bank-${i}`, value: `v ${i}` }));
    expect(checkCustomHeaders(five)).toEqual({ ok: true, headers: five });
    expect(checkCustomHeaders([...five, { name: 'X-Six', value: '6' }]).ok).toBe(false);
  });

  it.each([
    ['Content-Type', 'application/json'],
    ['x-service-signature', 'sha256=forged'],
    ['Webhook-Id', 'x'],
    ['Host', 'evil.example'],
    ['Proxy-Authorization', 'x'],
    ['Bad Name', 'x'],
    ['X-Ok', 'line\r\nX-Injected: 1'],
    ['X-Ok', ''],
    ['X-Ok', 'é'],
  ])('refuses %s: %s', (name, value) => {
    expect(checkCustomHeaders([{ name, value }]).ok).toBe(false);
  });

  it('refuses the same name twice, whatever the case', () => {
    expect(
      checkCustomHeaders([
        { name: 'X-Api-Key', value: 'a' },
        { name: 'x-api-key', value: 'b' },
      ]),
    ).toMatchObject({ ok: false, errors: [{ field: 'headers[1].name' }] });
  });
});

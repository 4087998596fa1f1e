/**
 * Origins an institution allows to embed the widget. Each entry is an exact origin
 * (`scheme://host[:port]`): no path, no wildcard, no credentials. https only, except where plain
 * http is allowed (development and tests, so `http://localhost:5173` works).
 */
export const MAX_WIDGET_ORIGINS = 20;

export type OriginCheck = { ok: true; origin: string } | { ok: false; message: string };

export function normalizeOrigin(input: string, allowHttp: boolean): OriginCheck {
  const value = input.trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, message: `${value} is not an origin such as https://bank.example` };
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:'))
    return { ok: false, message: `${value} must use https` };
  if (url.username || url.password)
    return { ok: false, message: `${value} must not carry credentials` };
  if (url.hostname.includes('*'))
    return { ok: false, message: `${value}: wildcards are not allowed` };
  // "https://bank.example/" is the origin written with a slash; anything more is a page, not an origin.
  if (url.pathname !== '/' || /[?#]/.test(value))
    return { ok: false, message: `${value} must be an origin only (no path, query or fragment)` };
  return { ok: true, origin: url.origin };
}

/** Validates and de-duplicates a list, keeping its order; returns the problems by index. */
export function normalizeOrigins(
  inputs: readonly string[],
  allowHttp: boolean,
): { origins: string[]; errors: { index: number; message: string }[] } {
  const origins: string[] = [];
  const errors: { index: number; message: string }[] = [];
  inputs.forEach((input, index) => {
    const r = normalizeOrigin(input, allowHttp);
    if (!r.ok) errors.push({ index, message: r.message });
    else if (!origins.includes(r.origin)) origins.push(r.origin);
  });
  return { origins, errors };
}

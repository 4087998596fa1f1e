/**
 * Custom request headers an institution's gateway may require (an API key, a routing tag): at most
 * five, with names that cannot replace the headers the service itself sends or that HTTP reserves,
 * and values of visible ASCII (no line breaks: no header injection).
 */
export const MAX_CUSTOM_HEADERS = 5;
export const MAX_CUSTOM_HEADER_VALUE = 1_000;

const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
const VALUE = /^[\x20-\x7e]+$/;
const RESERVED = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'host',
  'user-agent',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);
const RESERVED_PREFIXES = ['x-service-', 'webhook-', 'proxy-'];

export interface CustomHeader {
  name: string;
  value: string;
}

export type CustomHeadersCheck =
  | { ok: true; headers: CustomHeader[] }
  | { ok: false; errors: { field: string; message: string }[] };

export function checkCustomHeaders(headers: readonly CustomHeader[]): CustomHeadersCheck {
  const errors: { field: string; message: string }[] = [];
  if (headers.length > MAX_CUSTOM_HEADERS)
    errors.push({ field: 'headers', message: `at most ${MAX_CUSTOM_HEADERS} headers` });
  const seen = new Set<string>();
  headers.forEach((h, i) => {
    const lower = h.name.toLowerCase();
    if (!TOKEN.test(h.name))
      errors.push({ field: `headers[${i}].name`, message: 'not a valid header name' });
    else if (RESERVED.has(lower) || RESERVED_PREFIXES.some((p) => lower.startsWith(p)))
      errors.push({
        field: `headers[${i}].name`,
        message: `${h.name} is set by the service and cannot be replaced`,
      });
    else if (seen.has(lower))
      errors.push({ field: `headers[${i}].name`, message: `${h.name} appears twice` });
    seen.add(lower);
    if (!VALUE.test(h.value) || h.value.length > MAX_CUSTOM_HEADER_VALUE)
      errors.push({
        field: `headers[${i}].value`,
        message: `1 to ${MAX_CUSTOM_HEADER_VALUE} visible ASCII characters`,
      });
  });
  return errors.length
    ? { ok: false, errors }
    : { ok: true, headers: headers.map((h) => ({ name: h.name, value: h.value })) };
}

import { textProblem } from './text';

/**
 * Rules applied to every parsed request body and query string before any route sees it: bounded
 * nesting (checked on the raw bytes, before parsing costs a stack), the string rule of text.ts on
 * every key and value, and no `__proto__` key (never a field of ours; refused like any unknown
 * field instead of reaching object spreads and validators).
 */

/** Deepest nesting of objects and arrays accepted in a JSON body. */
export const MAX_JSON_DEPTH = 32;

/** True when the JSON text nests objects/arrays deeper than `max` (strings are skipped). */
export function jsonTooDeep(buf: Uint8Array, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

export interface InputProblem {
  field: string;
  message: string;
}

const child = (parent: string, key: string | number) =>
  typeof key === 'number' ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key;

/**
 * The first problem found in a parsed value, or null. `skip` names paths whose contents are
 * checked elsewhere item by item (the batch's transactions, refused per item, not as a whole).
 */
export function findInputProblem(
  value: unknown,
  path = '',
  skip: (path: string) => boolean = () => false,
  depth = 0,
): InputProblem | null {
  if (skip(path)) return null;
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? { field: path || 'body', message: problem } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth > MAX_JSON_DEPTH)
    return { field: path || 'body', message: `nests deeper than ${MAX_JSON_DEPTH} levels` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = findInputProblem(value[i], child(path, i), skip, depth + 1);
      if (p) return p;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const field = child(path, key);
    if (key === '__proto__') return { field, message: 'is not an accepted field' };
    const keyProblem = textProblem(key);
    if (keyProblem) return { field: path || 'body', message: `has a key that ${keyProblem}` };
    const p = findInputProblem((value as Record<string, unknown>)[key], field, skip, depth + 1);
    if (p) return p;
  }
  return null;
}

/**
 * e2e (jest setupFilesAfterEnv): a test file whose api answered anything the OpenAPI document
 * does not describe fails, naming each violation (operation, status, where in the body, why).
 * OPENAPI_VIOLATIONS_LOG=<file> also appends them there as JSON lines, to count them over a run.
 */
import { appendFileSync } from 'fs';
import { relative } from 'path';
import { contractViolations } from '../../../apps/api/src/docs/contract-validation';

afterAll(() => {
  const found = contractViolations.splice(0);
  if (!found.length) return;
  const file = relative(process.cwd(), expect.getState().testPath ?? '');
  if (process.env.OPENAPI_VIOLATIONS_LOG) {
    appendFileSync(
      process.env.OPENAPI_VIOLATIONS_LOG,
      found.map((v) => `${JSON.stringify({ file, ...v })}\n`).join(''),
    );
  }
  // One line per distinct violation: array indexes in the path do not make a new one.
  const lines = found.map(
    (v) =>
      `  ${v.kind} ${v.operation} ${v.status ?? ''} at '${v.path.replace(/\/\d+(?=\/|$)/g, '/*')}': ${v.message}`,
  );
  throw new Error(
    `${found.length} OpenAPI contract violation(s) in ${file}:\n${[...new Set(lines)].join('\n')}`,
  );
});

import { readFileSync } from 'fs';
import { join } from 'path';
import { DEPRECATION_LINK } from '../transactions/deprecation';
import { VERSIONING_POLICY, VERSIONING_POLICY_PATH } from './versioning-policy';

describe('versioning policy', () => {
  it('the served policy and docs/versioning.md are the same text', () => {
    const doc = readFileSync(
      join(__dirname, '..', '..', '..', '..', 'docs', 'versioning.md'),
      'utf8',
    );
    expect(doc).toBe(VERSIONING_POLICY);
  });

  it("a Deprecation answer's Link points to the served policy", () => {
    expect(DEPRECATION_LINK).toBe(
      `<${VERSIONING_POLICY_PATH}>; rel="deprecation"; type="text/markdown"`,
    );
  });
});

import { AppConfig } from '@app/config';
import { holdoutBucket } from '@app/domain';
import { HoldoutKeys } from './holdout-keys';

describe('HoldoutKeys', () => {
  const keys = new HoldoutKeys({ secretsKey: Buffer.alloc(32, 1) } as AppConfig);

  it('derives the documented key (docs/lift.md: HKDF-SHA256, info plo/v1/holdout/<institution>)', () => {
    const k = keys.of('5b3f0c2e-8d4a-4e6b-9f1a-2c3d4e5f6a7b');
    expect(k.toString('hex')).toBe(
      '17c014a6f522c98c611426226871e7491f43e9834f33048026292f5bc7daacfa',
    );
    expect(holdoutBucket(k, '0b6e2f1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b', 'tok_alice')).toBe(4423);
  });

  it('keeps one key per institution', () => {
    const a = keys.of('5b3f0c2e-8d4a-4e6b-9f1a-2c3d4e5f6a7b');
    expect(keys.of('5b3f0c2e-8d4a-4e6b-9f1a-2c3d4e5f6a7b')).toBe(a);
    expect(keys.of('00000000-0000-4000-8000-000000000000').equals(a)).toBe(false);
  });
});

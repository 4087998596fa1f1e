import { Logger } from '@nestjs/common';
import { type AppConfig, KeyRing } from '@app/config';
import { SignatureService } from './signature.service';
import type { SigningSecretRepository } from './signing-secret.repository';

describe('SignatureService', () => {
  afterEach(() => jest.restoreAllMocks());

  it('a stored secret that cannot be decrypted is logged with the request id, the request refused', async () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const secrets = { findEncrypted: async () => 'not-an-encrypted-secret' };
    const svc = new SignatureService(
      secrets as unknown as SigningSecretRepository,
      { keys: new KeyRing(Buffer.alloc(32, 1)) } as AppConfig,
    );
    await expect(
      svc.verify('inst-1', 'a'.repeat(64), Buffer.from('{}'), 'req-42'),
    ).rejects.toMatchObject({ code: 'invalid_signature' });
    expect(error).toHaveBeenCalledWith(
      { institutionId: 'inst-1', requestId: 'req-42', err: expect.any(String) },
      'signing secret cannot be decrypted',
    );
  });
});

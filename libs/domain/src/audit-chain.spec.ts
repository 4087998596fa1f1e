import {
  AuditChainVerifier,
  AuditEntryContent,
  auditEntryHash,
  auditSnapshot,
  canonicalJson,
  ChainedAuditEntry,
} from './audit-chain';

const entry = (n: number, over: Partial<AuditEntryContent> = {}): AuditEntryContent => ({
  id: `00000000-0000-4000-8000-00000000000${n}`,
  at: `2026-11-26T10:00:0${n}.000Z`,
  actor: { type: 'operator', id: 'op-1', email: 'ana@ops.example' },
  action: 'offer.update',
  resource_type: 'offer',
  resource_id: 'offer-1',
  institution_id: null,
  before: { priority: n },
  after: { priority: n + 1 },
  request_id: `req-${n}`,
  ip: null,
  ...over,
});

function chain(contents: AuditEntryContent[]): ChainedAuditEntry[] {
  let prev: string | null = null;
  return contents.map((c) => {
    const hash = auditEntryHash(prev, c);
    const e = { ...c, prev_hash: prev, hash };
    prev = hash;
    return e;
  });
}

const verify = (entries: ChainedAuditEntry[]) => {
  const v = new AuditChainVerifier();
  for (const e of entries) {
    const problem = v.push(e);
    if (problem) return problem;
  }
  return v.checked;
};

describe('audit snapshots', () => {
  it('never hold a secret: passwords, token and key hashes, secrets are redacted', () => {
    expect(
      auditSnapshot({
        email: 'ana@ops.example',
        password: 'hunter2hunter2',
        password_hash: 'scrypt$…',
        token_hash: 'ab12',
        signing_secret: 'whsec_x',
        key: 'plo_live_abc',
      }),
    ).toEqual({
      email: 'ana@ops.example',
      password: '[redacted]',
      password_hash: '[redacted]',
      token_hash: '[redacted]',
      signing_secret: '[redacted]',
      key: '[redacted]',
    });
  });

  it('keep ids, display hints and names of keys and tokens', () => {
    expect(
      auditSnapshot({ key_id: 'k1', token_id: 't1', prefix: 'plo_live_…abcd', name: 'ci' }),
    ).toEqual({ key_id: 'k1', token_id: 't1', prefix: 'plo_live_…abcd', name: 'ci' });
  });

  it('hold cardholder tokens only masked, at any depth', () => {
    expect(auditSnapshot({ claim: { cardholder_token: 'chk_1234567890abcd' } })).toEqual({
      claim: { cardholder_token: 'chk_****abcd' },
    });
  });

  it('write dates as ISO text and leave out undefined fields', () => {
    expect(auditSnapshot({ at: new Date('2026-01-02T03:04:05.000Z'), gone: undefined })).toEqual({
      at: '2026-01-02T03:04:05.000Z',
    });
  });
});

describe('the hash chain', () => {
  it('is the same text whatever the key order (PostgreSQL jsonb reorders keys)', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}',
    );
  });

  it('each entry carries the previous one’s hash; an intact chain verifies', () => {
    const entries = chain([entry(1), entry(2), entry(3)]);
    expect(entries[0].prev_hash).toBeNull();
    expect(entries[1].prev_hash).toBe(entries[0].hash);
    expect(verify(entries)).toBe(3);
  });

  it('a changed field anywhere in an entry is evident', () => {
    const entries = chain([entry(1), entry(2), entry(3)]);
    entries[1] = { ...entries[1], after: { priority: 99 } };
    expect(verify(entries)).toMatchObject({ entry_id: entries[1].id, problem: 'hash_mismatch' });
    const actor = chain([entry(1), entry(2)]);
    actor[0] = { ...actor[0], actor: { ...actor[0].actor, email: 'someone@else.example' } };
    expect(verify(actor)).toMatchObject({ problem: 'hash_mismatch' });
  });

  it('a removed or inserted entry is evident', () => {
    const entries = chain([entry(1), entry(2), entry(3)]);
    expect(verify([entries[0], entries[2]])).toMatchObject({
      entry_id: entries[2].id,
      problem: 'prev_hash_mismatch',
    });
    const forged = {
      ...entry(4),
      prev_hash: entries[0].hash,
      hash: auditEntryHash(entries[0].hash, entry(4)),
    };
    expect(verify([entries[0], forged, entries[1]])).toMatchObject({
      entry_id: entries[1].id,
      problem: 'prev_hash_mismatch',
    });
  });

  it('a rehashed entry does not hide the change: the next entry no longer links to it', () => {
    const entries = chain([entry(1), entry(2)]);
    const changed = { ...entries[0], before: { priority: 42 } };
    changed.hash = auditEntryHash(null, changed);
    expect(verify([changed, entries[1]])).toMatchObject({
      entry_id: entries[1].id,
      problem: 'prev_hash_mismatch',
    });
  });
});

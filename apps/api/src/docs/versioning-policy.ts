/**
 * The versioning and deprecation policy, served at /docs/versioning (where the `Link` of a
 * `Deprecation` answer points) and kept word for word in docs/versioning.md (a unit test compares
 * them), so a client reads the same text online and in the repository.
 */
export const VERSIONING_POLICY_PATH = '/docs/versioning';

export const VERSIONING_POLICY = `# Versioning and deprecation

How the interface changes, and how you hear about it before anything you use goes away.

## Versions

- The major version is in the path: \`/api/v1\`, \`/widget/v1\`, \`/admin/api/v1\`. The OpenAPI
  document's \`info.version\` follows semantic versioning; CHANGELOG.md lists every release.
- Within a major version every change is **additive**: new endpoints, new optional request
  fields, new response fields, new event types you subscribe to, new error codes and new
  headers. Write clients that ignore response fields they do not know and treat an unknown
  \`error\` code by its HTTP status.
- A change that could break a working client (removing or renaming a field, making an optional
  field required, narrowing accepted values, changing a status code or a field's meaning) only
  happens in a new major version (\`/api/v2\`), which runs beside the previous one.

## Deprecation

- Something superseded is first **deprecated**: marked \`deprecated\` in the OpenAPI document,
  listed in CHANGELOG.md, and it keeps working for the whole major version.
- Every answer to a request that uses a deprecated feature carries a \`Deprecation\` header
  (RFC 9745; its value is the date it was deprecated, \`@\` + Unix seconds) and
  \`Link: </docs/versioning>; rel="deprecation"\`, pointing here. Log these headers in your
  client to find the calls to migrate.
- Removal happens only in a new major version, announced in CHANGELOG.md at least **six months**
  before the earlier major version is switched off.

## Deprecated today

| feature | deprecated | use instead |
|---|---|---|
| the earlier transaction payload shape (\`transaction_id\`, \`timestamp\`) on \`POST /api/v1/transactions\` and \`/batch\` | 2026-11-23 (\`@1795392000\`) | \`transaction_ref\`, \`transacted_at\` |
| \`X-Service-Signature\` (V1, the body alone) on webhooks | not yet: still sent | \`X-Service-Signature-V2\` or the Standard Webhooks headers |
`;

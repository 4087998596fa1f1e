import { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type express from 'express';
import { finishContract } from './contract';
import type { Klass } from './validator-bounds';
import { VERSIONING_POLICY, VERSIONING_POLICY_PATH } from './versioning-policy';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Payment-linked offers service')
    .setDescription(
      [
        'Institutions post cardholder transactions, read an offer feed, enroll cardholders in cashback offers,',
        'receive signed `redemption.completed` webhooks and read reporting.',
        '',
        '- **Public API** `/api/v1/...`: `Authorization: Bearer <API_KEY>`; the institution is taken from the key.',
        '- **Admin API** `/admin/api/v1/...`: operators, `Authorization: Bearer <OPERATOR_TOKEN>`.',
        "- **Portal API** `/portal/api/...`: the portal's back end (session cookie, `X-CSRF-Token` on writes).",
        '- **Widget API** `/widget/v1/...`: browser-facing, `Authorization: Bearer cs_...` (a cardholder session minted by `POST /api/v1/cardholder-sessions`); CORS for the origins the institution lists.',
        '',
        'Every error has the body `{"error", "message", "details"?, "request_id"}`; every response carries `X-Request-Id`.',
        'Public routes answer with `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`; a 429 carries `Retry-After`.',
        '',
        '## Versioning and deprecation',
        '',
        'The path carries the major version (`/api/v1`). Within a major version changes are additive only: new',
        'endpoints, new optional request fields, new response fields and new error codes (clients must ignore unknown',
        'fields and treat unknown codes by their HTTP status). A field or shape that is superseded is marked',
        '`deprecated` here, keeps working for the whole major version, and answers to requests that use it carry a',
        '`Deprecation` header (RFC 9745) and `Link: </docs/versioning>; rel="deprecation"`, the whole policy',
        '([/docs/versioning](/docs/versioning)). Today that is the earlier transaction payload shape (`transaction_id`,',
        '`timestamp`). Removal happens only in a new major version, announced in the changelog at least six months ahead.',
      ].join('\n'),
    )
    .setVersion('1.0.0')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description:
          'Institution API key: an opaque `plo_live_…` string (not a JWT) issued by an operator or in the portal. `Authorization: Bearer plo_live_…`',
      },
      'api-key',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description: 'Cardholder session (cs_...), minted by POST /api/v1/cardholder-sessions',
      },
      'cardholder-session',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description:
          "An operator's personal token (`plo_op_…`, acting with its role), or the break-glass token: the value of the OPERATOR_TOKEN variable (in development generated into `.env`), which may do everything and is audited on every use. `Authorization: Bearer <token>`",
      },
      'operator-token',
    )
    .addCookieAuth(
      'plo_operator_session',
      { type: 'apiKey', in: 'cookie', name: 'plo_operator_session' },
      'operator-session',
    )
    .addCookieAuth(
      'plo_session',
      { type: 'apiKey', in: 'cookie', name: 'plo_session' },
      'portal-session',
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controllerKey: string, methodKey: string) =>
      `${controllerKey}_${methodKey}`,
  });
  finishContract(document, routeParamClasses(app));
  document.tags = [
    { name: 'Account', description: 'Check an API key' },
    { name: 'Transactions', description: 'Transaction ingestion and matching' },
    { name: 'Offers', description: 'Offer feed and enrollment' },
    { name: 'Cardholder sessions', description: 'Short-lived tokens for the embeddable widget' },
    { name: 'Widget', description: 'Browser-facing widget API (cardholder session, CORS)' },
    { name: 'Merchants', description: 'Merchant mapping' },
    { name: 'Reporting', description: 'Redemptions, settlements and the engagement funnel' },
    {
      name: 'Privacy',
      description: "A cardholder's data: what is stored (right of access) and erasure",
    },
    {
      name: 'Admin',
      description:
        'Operator API: operators and their tokens, console sign-in, institutions, users, keys, merchants, offers, settlement, the audit log',
    },
    { name: 'Portal', description: 'Back end of the institution portal' },
    { name: 'Operations', description: 'Health and readiness' },
  ].filter((t) =>
    Object.values(document.paths).some((p) =>
      Object.values(p).some((op: { tags?: string[] }) => op?.tags?.includes(t.name)),
    ),
  );
  return document;
}

/** The classes the routes take as parameters (bodies and queries), from TypeScript's metadata. */
function routeParamClasses(app: INestApplication): Klass[] {
  const out = new Set<Klass>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const proto = (wrapper.metatype as Klass | undefined)?.prototype;
      if (!proto) continue;
      for (const method of Object.getOwnPropertyNames(proto)) {
        const types = Reflect.getMetadata('design:paramtypes', proto, method) as
          Klass[] | undefined;
        for (const t of types ?? []) if (typeof t === 'function' && t.name) out.add(t);
      }
    }
  }
  return [...out];
}

/**
 * Swagger UI at /docs, the JSON document at /docs/openapi.json, and the versioning policy (where
 * `Deprecation` answers link) at /docs/versioning as Markdown.
 */
export function setupSwagger(app: INestApplication): void {
  const http = app.getHttpAdapter().getInstance() as express.Express;
  http.get(VERSIONING_POLICY_PATH, (_req, res) => {
    res.type('text/markdown; charset=utf-8').send(VERSIONING_POLICY);
  });
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
    customSiteTitle: 'Offers service API',
  });
}

import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

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
      ].join('\n'),
    )
    .setVersion('1.0.0')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'Institution API key (plo_live_...)' },
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
      { type: 'http', scheme: 'bearer', description: 'OPERATOR_TOKEN' },
      'operator-token',
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
  document.tags = [
    { name: 'Account', description: 'Check an API key' },
    { name: 'Transactions', description: 'Transaction ingestion and matching' },
    { name: 'Offers', description: 'Offer feed and enrollment' },
    { name: 'Cardholder sessions', description: 'Short-lived tokens for the embeddable widget' },
    { name: 'Widget', description: 'Browser-facing widget API (cardholder session, CORS)' },
    { name: 'Merchants', description: 'Merchant mapping' },
    { name: 'Reporting', description: 'Redemptions, settlements and the engagement funnel' },
    {
      name: 'Admin',
      description: 'Operator API: institutions, users, keys, merchants, offers, settlement',
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

/** Swagger UI at /docs, the JSON document at /docs/openapi.json. */
export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
    customSiteTitle: 'Offers service API',
  });
}

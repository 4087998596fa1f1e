import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import type { AuditContext } from '@app/core';
import { DAY_MS, SYSTEM_ACTOR } from '@app/domain';
import { AppModule } from '../../api/src/app.module';
import { ApiKeysService } from '../../api/src/auth/api-keys.service';
import { InstitutionsService } from '../../api/src/admin/institutions.service';
import { MerchantsService } from '../../api/src/admin/merchants.service';
import { OffersAdminService } from '../../api/src/admin/offers-admin.service';
import { CreateOfferDto } from '../../api/src/admin/offers.dto';
import type { PortalPrincipal } from '../../api/src/auth/principal';
import { WebhookSettingsService } from '../../api/src/webhooks/webhook-settings.service';
import { migrate } from './migrate.command';
import { SeedDemoRepository } from './seed-demo.repository';

/** The seed's changes are in the audit log as the system's. */
const SEED: AuditContext = { actor: SYSTEM_ACTOR, requestId: null };

export const DEMO = {
  institution: 'Demo Bank',
  admin: { email: 'admin@demo-bank.example', password: 'demo-password-123' },
  member: { email: 'member@demo-bank.example', password: 'demo-password-123' },
};

/**
 * The card lifecycle demo (docs/transactions.md): a second institution whose program rewards at
 * the authorization (the clearing confirms it, a void or 7 days without a clearing reverse it),
 * with one offer at Green Grocer.
 */
export const LIFECYCLE_DEMO = {
  institution: 'Demo Card Bank',
  offerTitle: '$5 back on $20, rewarded at the swipe',
};

/** The offer the demo's printed purchase matches: 5% back, no minimum, ten times per cardholder. */
export const DEMO_OFFER_TITLE = '5% back at Café Central';

const MERCHANTS = [
  {
    name: 'Green Grocer',
    category: 'groceries',
    identifiers: [{ type: 'card_acceptor', value: 'DEMO-CA-GREENGROCER' }],
  },
  {
    name: 'Café Central',
    category: 'restaurants',
    identifiers: [{ type: 'pix_key', value: 'demo-pix-cafe-central' }],
  },
  {
    name: 'Bharat Books',
    category: 'books',
    identifiers: [{ type: 'upi_vpa', value: 'bharatbooks@demoupi' }],
  },
  {
    name: 'Tienda Sol',
    category: 'fashion',
    identifiers: [{ type: 'codi', value: 'DEMO-CODI-TIENDASOL' }],
  },
  {
    name: 'FuelPoint',
    category: 'fuel',
    identifiers: [{ type: 'psp_merchant_id', value: 'DEMO-PSP-FUELPOINT' }],
  },
  {
    name: 'StreamMax',
    category: 'entertainment',
    identifiers: [{ type: 'card_acceptor', value: 'DEMO-CA-STREAMMAX' }],
  },
];

type OfferSeed = Omit<
  CreateOfferDto,
  'merchant_id' | 'currency' | 'starts_at' | 'expires_at' | 'status' | 'institution_ids'
> & {
  merchant: number;
  days?: number;
};

const t = (en: string, es: string, pt: string, d: [string, string, string]) => ({
  en: { title: en, description: d[0] },
  es: { title: es, description: d[1] },
  'pt-BR': { title: pt, description: d[2] },
});

type Texts = Record<string, { title?: string; description?: string } | undefined>;

const sameTexts = (a: Texts, b: Texts) =>
  Object.keys({ ...a, ...b }).every(
    (l) => a[l]?.title === b[l]?.title && a[l]?.description === b[l]?.description,
  );

const OFFERS: OfferSeed[] = [
  {
    merchant: 0,
    min_spend: 20,
    cashback_amount: 5,
    merchant_fee_amount: 1,
    priority: 10,
    translations: t(
      '$5 back at Green Grocer',
      '5 $ de reembolso en Green Grocer',
      'US$5 de volta no Green Grocer',
      ['Spend $20 or more.', 'Gasta 20 $ o más.', 'Gaste US$20 ou mais.'],
    ),
  },
  {
    merchant: 0,
    reward_type: 'percent',
    cashback_percent: 10,
    cashback_amount: 15,
    min_spend: 30,
    merchant_fee_amount: 1.5,
    max_redemptions_per_cardholder: 3,
    translations: t(
      '10% back on groceries',
      '10% de reembolso en comestibles',
      '10% de volta em mercado',
      ['Up to $15, three times.', 'Hasta 15 $, tres veces.', 'Até US$15, três vezes.'],
    ),
  },
  {
    merchant: 1,
    min_spend: 10,
    cashback_amount: 2,
    priority: 5,
    translations: t('$2 back on coffee', '2 $ de reembolso en café', 'US$2 de volta no café', [
      'Any order of $10 or more.',
      'Cualquier pedido de 10 $ o más.',
      'Qualquer pedido de US$10 ou mais.',
    ]),
  },
  {
    merchant: 2,
    reward_type: 'percent',
    cashback_percent: 15,
    cashback_amount: 12,
    min_spend: 25,
    translations: { en: { title: '15% back on books', description: 'Up to $12.' } },
  },
  {
    merchant: 3,
    min_spend: 80,
    cashback_amount: 20,
    merchant_fee_amount: 4,
    segments: ['premium'],
    translations: t(
      '$20 back for Premium cardholders',
      '20 $ para clientes Premium',
      'US$20 para clientes Premium',
      ['Spend $80 at Tienda Sol.', 'Gasta 80 $ en Tienda Sol.', 'Gaste US$80 na Tienda Sol.'],
    ),
  },
  {
    merchant: 4,
    min_spend: 40,
    cashback_amount: 3,
    budget_total: 30,
    days: 7,
    translations: t(
      '$3 back on fuel, this week only',
      '3 $ en combustible, solo esta semana',
      'US$3 em combustível, só esta semana',
      ['Limited budget.', 'Presupuesto limitado.', 'Orçamento limitado.'],
    ),
  },
  {
    merchant: 5,
    reward_type: 'percent',
    cashback_percent: 20,
    cashback_amount: 4,
    min_spend: 10,
    translations: t('20% back on streaming', '20% en streaming', '20% em streaming', [
      'Up to $4.',
      'Hasta 4 $.',
      'Até US$4.',
    ]),
  },
  {
    merchant: 5,
    min_spend: 50,
    cashback_amount: 10,
    segments: ['students', 'premium'],
    priority: 3,
    translations: t('$10 back on an annual plan', '10 $ en el plan anual', 'US$10 no plano anual', [
      'Students and Premium.',
      'Estudiantes y Premium.',
      'Estudantes e Premium.',
    ]),
  },
  {
    merchant: 1,
    reward_type: 'percent',
    cashback_percent: 5,
    cashback_amount: 5,
    min_spend: 0,
    max_redemptions_per_cardholder: 10,
    translations: t('5% back at Café Central', '5% en Café Central', '5% no Café Central', [
      'Every visit, up to $5.',
      'Cada visita, hasta 5 $.',
      'Toda visita, até US$5.',
    ]),
  },
  {
    merchant: 2,
    min_spend: 60,
    cashback_amount: 8,
    budget_total: 400,
    days: 14,
    translations: t(
      '$8 back on $60 of books',
      '8 $ por 60 $ en libros',
      'US$8 em US$60 de livros',
      ['Two weeks only.', 'Solo dos semanas.', 'Só duas semanas.'],
    ),
  },
  {
    merchant: 3,
    reward_type: 'percent',
    cashback_percent: 12.5,
    cashback_amount: 25,
    min_spend: 100,
    merchant_fee_amount: 2.5,
    translations: t('12.5% back at Tienda Sol', '12,5% en Tienda Sol', '12,5% na Tienda Sol', [
      'Up to $25.',
      'Hasta 25 $.',
      'Até US$25.',
    ]),
  },
  {
    merchant: 4,
    min_spend: 25,
    cashback_amount: 1.5,
    priority: 1,
    translations: t(
      '$1.50 back on any fill-up',
      '1,50 $ en cualquier carga',
      'US$1,50 em qualquer abastecimento',
      ['$25 or more.', '25 $ o más.', 'US$25 ou mais.'],
    ),
  },
  {
    // Qualification rules: a weekday lunch offer for visa cards, purchases up to $80.
    merchant: 0,
    min_spend: 15,
    cashback_amount: 4,
    qualification: {
      max_spend: 80,
      days_of_week: [1, 2, 3, 4, 5],
      time_of_day: { from: '11:00', to: '14:00' },
      networks: ['visa'],
    },
    translations: t(
      '$4 back on a weekday lunch',
      '4 $ en el almuerzo entre semana',
      'US$4 de volta no almoço em dia útil',
      [
        'Monday to Friday, 11:00-14:00, Visa, $15 to $80.',
        'De lunes a viernes, 11:00-14:00, Visa, de 15 $ a 80 $.',
        'Segunda a sexta, 11:00-14:00, Visa, de US$15 a US$80.',
      ],
    ),
  },
  {
    // Channel: online orders only (transactions sent with "channel": "online").
    merchant: 5,
    min_spend: 30,
    cashback_amount: 6,
    qualification: { channels: ['online'] },
    translations: t(
      '$6 back on online orders',
      '6 $ en pedidos en línea',
      'US$6 em pedidos online',
      [
        'Online purchases of $30 or more.',
        'Compras en línea de 30 $ o más.',
        'Compras online de US$30 ou mais.',
      ],
    ),
  },
  {
    // Activation window: counts for 14 days after the add; add it again afterwards.
    merchant: 2,
    min_spend: 20,
    cashback_amount: 3,
    qualification: { activation_days: 14 },
    translations: t('$3 back within 14 days', '3 $ en 14 días', 'US$3 em 14 dias', [
      'Use it within 14 days of adding it.',
      'Úsala dentro de los 14 días.',
      'Use em até 14 dias depois de adicionar.',
    ]),
  },
  {
    // Acquisition: only cardholders with no purchase at this merchant in the last 90 days.
    merchant: 3,
    min_spend: 25,
    cashback_amount: 10,
    qualification: { audience: 'new', lookback_days: 90 },
    translations: t(
      '$10 back on your first visit',
      '10 $ en tu primera visita',
      'US$10 na sua primeira visita',
      [
        'New customers (no visit in 90 days).',
        'Clientes nuevos (sin visitas en 90 días).',
        'Clientes novos (sem visita em 90 dias).',
      ],
    ),
  },
  {
    // Goal offer (frequency): the third purchase of 10 or more earns the reward, twice at most.
    merchant: 0,
    min_spend: 10,
    cashback_amount: 5,
    max_redemptions_per_cardholder: 2,
    goal: { type: 'purchase_count', target: 3 },
    translations: t('$5 back on your 3rd visit', '5 $ en tu 3.ª visita', 'US$5 na 3ª visita', [
      'Three purchases of $10 or more; the third one earns $5.',
      'Tres compras de 10 $ o más; la tercera gana 5 $.',
      'Três compras de US$10 ou mais; a terceira ganha US$5.',
    ]),
  },
  {
    // Goal offer (cumulative spend): 10% of the spend once purchases add up to 100, up to 15.
    merchant: 4,
    min_spend: 0,
    reward_type: 'percent',
    cashback_percent: 10,
    cashback_amount: 15,
    goal: { type: 'cumulative_spend', target: 100 },
    translations: t(
      '10% back when you reach $100',
      '10 % al llegar a 100 $',
      '10% ao chegar a US$100',
      [
        'Purchases add up; the one that reaches $100 earns 10% of them (up to $15).',
        'Las compras se suman; la que llega a 100 $ gana el 10 % (hasta 15 $).',
        'As compras somam; a que chega a US$100 ganha 10% (até US$15).',
      ],
    ),
  },
];

/**
 * Creates (once) a demo institution with program, staff logins, merchants with identifiers of
 * every type and a dozen offers; issues a fresh API key on every run and prints it, with the
 * merchants' identifiers and the offer the demo purchase matches. `--webhook-url URL` also sets
 * the institution's webhook URL and a fresh signing secret (printed once), as an admin would in
 * the portal.
 */
export async function seedDemo(args: string[] = []): Promise<void> {
  const urlAt = args.indexOf('--webhook-url');
  const webhookUrl = urlAt >= 0 ? args[urlAt + 1] : undefined;
  await migrate();
  const app = await NestFactory.createApplicationContext(AppModule, {
    logger: ['error'],
    abortOnError: false,
  });
  try {
    const seeded = new SeedDemoRepository(app.get(DataSource));
    const institutions = app.get(InstitutionsService);
    const institutionId: string =
      (await seeded.institutionIdByName(DEMO.institution)) ??
      (
        await institutions.create(
          {
            name: DEMO.institution,
            plan: 'growth',
            program: {
              supported_locales: ['en', 'es', 'pt-BR'],
              sort_order: 'featured',
              max_active_offers: 10,
              widget_feed_limit: 20,
            },
          },
          SEED,
        )
      ).id;

    for (const [u, role] of [
      [DEMO.admin, 'admin'],
      [DEMO.member, 'member'],
    ] as const) {
      if (!(await seeded.portalUserExists(u.email)))
        await institutions.createUser(
          institutionId,
          { email: u.email, password: u.password, role },
          SEED,
        );
    }

    const merchants = app.get(MerchantsService);
    const merchantIds: string[] = [];
    for (const m of MERCHANTS) {
      const { type, value } = m.identifiers[0];
      merchantIds.push(
        (await seeded.merchantIdByIdentifier(type, value)) ?? (await merchants.create(m, SEED)).id,
      );
    }

    // Each demo offer once (by its English title): a demo database seeded by an earlier version
    // gets the offers added since, and the texts corrected since (pt-BR amounts of these USD
    // offers in US$, they said R$).
    const existing = await seeded.offersByTitle(institutionId);
    {
      const offers = app.get(OffersAdminService);
      const now = Date.now();
      for (const { merchant, days, ...o } of OFFERS) {
        const found = existing.get(o.translations.en?.title);
        if (found) {
          if (!sameTexts(found.translations, o.translations))
            await offers.update(found.id, { translations: o.translations }, SEED);
          continue;
        }
        await offers.create(
          {
            ...o,
            merchant_id: merchantIds[merchant],
            institution_ids: [institutionId],
            status: 'active',
            currency: 'USD',
            starts_at: new Date(now - DAY_MS).toISOString(),
            expires_at: new Date(now + (days ?? 90) * DAY_MS).toISOString(),
          },
          SEED,
        );
      }
    }

    const demoOfferId = await seeded.offerIdByTitle(institutionId, DEMO_OFFER_TITLE);

    // The card lifecycle demo institution (once, by name) and its offer (once, by title).
    const cardInstitutionId: string =
      (await seeded.institutionIdByName(LIFECYCLE_DEMO.institution)) ??
      (
        await institutions.create(
          {
            name: LIFECYCLE_DEMO.institution,
            plan: 'growth',
            program: { reward_on: 'authorization', authorization_expiry_days: 7 },
          },
          SEED,
        )
      ).id;
    const cardOfferId: string =
      (await seeded.offerIdByTitle(cardInstitutionId, LIFECYCLE_DEMO.offerTitle)) ??
      (
        await app.get(OffersAdminService).create(
          {
            merchant_id: merchantIds[0],
            institution_ids: [cardInstitutionId],
            status: 'active',
            currency: 'USD',
            min_spend: 20,
            cashback_amount: 5,
            translations: {
              en: {
                title: LIFECYCLE_DEMO.offerTitle,
                description:
                  'Rewarded at the authorization; the clearing confirms it, a void reverses it.',
              },
            },
            starts_at: new Date(Date.now() - DAY_MS).toISOString(),
            expires_at: new Date(Date.now() + 90 * DAY_MS).toISOString(),
          },
          SEED,
        )
      ).id;
    const cardKey = await app
      .get(ApiKeysService)
      .issue(
        cardInstitutionId,
        { name: `demo key ${new Date().toISOString()}`, grantor: 'operator' },
        { label: 'seed-demo' },
      );

    let webhook: string[] = [];
    if (webhookUrl) {
      const hooks = app.get(WebhookSettingsService);
      const actor = { institutionId, email: 'seed-demo' } as PortalPrincipal;
      await hooks.setUrl(actor, webhookUrl, undefined);
      const { signing_secret } = await hooks.rotateSecret(actor, undefined, 0);
      webhook = [`webhook url:      ${webhookUrl}`, `signing secret:   ${signing_secret}`];
    }

    const key = await app
      .get(ApiKeysService)
      .issue(
        institutionId,
        { name: `demo key ${new Date().toISOString()}`, grantor: 'operator' },
        { label: 'seed-demo' },
      );
    process.stdout.write(
      [
        `demo institution: ${DEMO.institution} (${institutionId}), plan growth, locales en/es/pt-BR`,
        `portal login:     ${DEMO.admin.email} / ${DEMO.admin.password}  (admin)`,
        `                  ${DEMO.member.email} / ${DEMO.member.password}  (member)`,
        `api key:          ${key.key}`,
        ...webhook,
        `demo offer:       ${demoOfferId ?? '(none)'}  ${DEMO_OFFER_TITLE}`,
        'merchants (name, identifier type, identifier, merchant_id):',
        ...MERCHANTS.map(
          (m, i) =>
            `  ${m.name.padEnd(14)} ${m.identifiers[0].type.padEnd(16)} ${m.identifiers[0].value.padEnd(22)} ${merchantIds[i]}`,
        ),
        `card lifecycle:   ${LIFECYCLE_DEMO.institution} (${cardInstitutionId}), reward_on authorization`,
        `card lifecycle key: ${cardKey.key}`,
        `card lifecycle offer: ${cardOfferId}  ${LIFECYCLE_DEMO.offerTitle}`,
        'card lifecycle try: add the offer, post an `authorization` at DEMO-CA-GREENGROCER (rewarded at once), then its `clearing` or `authorization_reversal` naming it by original_transaction_ref',
        '',
      ].join('\n'),
    );
  } finally {
    await app.close();
  }
}

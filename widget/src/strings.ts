/** The widget's own strings (offer texts come localized from the feed). */
export type Lang = 'en' | 'es' | 'pt-BR';

const en = {
  region: 'Offers',
  loading: 'Loading offers…',
  empty: 'No offers right now. Check back soon.',
  error: 'We couldn’t load your offers.',
  retry: 'Try again',
  expired: 'Your session has expired. Refresh the page to see your offers.',
  add: 'Add offer',
  addLabel: (title: string) => `Add offer: ${title}`,
  adding: 'Adding…',
  added: 'Added',
  addedAnnounce: (title: string) => `Added: ${title}`,
  back: (amount: string) => `${amount} back`,
  percentBack: (percent: string, cap: string) => `${percent} back, up to ${cap}`,
  minSpend: (amount: string) => `On purchases of ${amount} or more`,
  ends: (date: string) => `Ends ${date}`,
  progress: 'Progress',
  purchases: (current: number, target: number) => `${current} of ${target} purchases`,
  spent: (current: string, target: string) => `${current} of ${target} spent`,
  days: (list: string) => `Valid on ${list}`,
  hours: (from: string, to: string) => `From ${from} to ${to}`,
  online: 'Online',
  inStore: 'In store',
  onlyChannels: (list: string) => `${list} only`,
  audienceNew: 'New customers only',
  audienceLapsed: 'For returning customers',
  terms: 'Terms',
  errors: {
    segment_not_eligible: 'This offer isn’t available for your account.',
    max_active_offers: 'You already have the maximum number of active offers.',
    offer_unavailable: 'This offer is no longer available.',
    offer_not_found: 'This offer is no longer available.',
    preview_read_only: 'Adding is disabled in the preview.',
    other: 'Couldn’t add the offer. Please try again.',
  } as Record<string, string>,
};
export type Strings = typeof en;

const es: Strings = {
  region: 'Ofertas',
  loading: 'Cargando ofertas…',
  empty: 'No hay ofertas por ahora. Vuelve pronto.',
  error: 'No pudimos cargar tus ofertas.',
  retry: 'Reintentar',
  expired: 'Tu sesión ha caducado. Actualiza la página para ver tus ofertas.',
  add: 'Añadir oferta',
  addLabel: (title) => `Añadir oferta: ${title}`,
  adding: 'Añadiendo…',
  added: 'Añadida',
  addedAnnounce: (title) => `Añadida: ${title}`,
  back: (amount) => `${amount} de reembolso`,
  percentBack: (percent, cap) => `${percent} de reembolso, hasta ${cap}`,
  minSpend: (amount) => `En compras desde ${amount}`,
  ends: (date) => `Termina el ${date}`,
  progress: 'Progreso',
  purchases: (current, target) => `${current} de ${target} compras`,
  spent: (current, target) => `${current} de ${target} gastados`,
  days: (list) => `Válida los ${list}`,
  hours: (from, to) => `De ${from} a ${to}`,
  online: 'En línea',
  inStore: 'En tienda',
  onlyChannels: (list) => `Solo ${list}`,
  audienceNew: 'Solo clientes nuevos',
  audienceLapsed: 'Para clientes que regresan',
  terms: 'Condiciones',
  errors: {
    segment_not_eligible: 'Esta oferta no está disponible para tu cuenta.',
    max_active_offers: 'Ya tienes el número máximo de ofertas activas.',
    offer_unavailable: 'Esta oferta ya no está disponible.',
    offer_not_found: 'Esta oferta ya no está disponible.',
    preview_read_only: 'Añadir está desactivado en la vista previa.',
    other: 'No se pudo añadir la oferta. Inténtalo de nuevo.',
  },
};

const pt: Strings = {
  region: 'Ofertas',
  loading: 'Carregando ofertas…',
  empty: 'Nenhuma oferta no momento. Volte em breve.',
  error: 'Não foi possível carregar suas ofertas.',
  retry: 'Tentar novamente',
  expired: 'Sua sessão expirou. Atualize a página para ver suas ofertas.',
  add: 'Ativar oferta',
  addLabel: (title) => `Ativar oferta: ${title}`,
  adding: 'Ativando…',
  added: 'Ativada',
  addedAnnounce: (title) => `Ativada: ${title}`,
  back: (amount) => `${amount} de volta`,
  percentBack: (percent, cap) => `${percent} de volta, até ${cap}`,
  minSpend: (amount) => `Em compras a partir de ${amount}`,
  ends: (date) => `Termina em ${date}`,
  progress: 'Progresso',
  purchases: (current, target) => `${current} de ${target} compras`,
  spent: (current, target) => `${current} de ${target} gastos`,
  days: (list) => `Válida às ${list}`,
  hours: (from, to) => `Das ${from} às ${to}`,
  online: 'Online',
  inStore: 'Na loja',
  onlyChannels: (list) => `Somente ${list}`,
  audienceNew: 'Somente para novos clientes',
  audienceLapsed: 'Para clientes que voltam',
  terms: 'Condições',
  errors: {
    segment_not_eligible: 'Esta oferta não está disponível para a sua conta.',
    max_active_offers: 'Você já tem o número máximo de ofertas ativas.',
    offer_unavailable: 'Esta oferta não está mais disponível.',
    offer_not_found: 'Esta oferta não está mais disponível.',
    preview_read_only: 'Ativar ofertas está desativado na pré-visualização.',
    other: 'Não foi possível ativar a oferta. Tente novamente.',
  },
};

const TABLE: Record<Lang, Strings> = { en, es, 'pt-BR': pt };

/** en, es or pt-BR for any tag (es-MX → es, pt → pt-BR); English otherwise. */
export function resolveLang(tag: string | null | undefined): Lang {
  const t = (tag ?? '').toLowerCase();
  if (t.startsWith('pt')) return 'pt-BR';
  if (t.startsWith('es')) return 'es';
  return 'en';
}

export const stringsFor = (lang: Lang): Strings => TABLE[lang];

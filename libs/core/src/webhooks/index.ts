export * from './ssrf-guard';
export * from './webhook-http';
export * from './webhook-store';
export * from './webhook-events';
export * from './webhook-replays';
export * from './webhook-outbox';
export * from './webhook-delivery.service';
export * from './webhooks-core.module';

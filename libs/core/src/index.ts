export * from './password';
export * from './secrets';
export * from './webhooks';

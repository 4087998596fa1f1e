export * from './money';
export * from './masking';
export * from './pii';
export * from './api-key';
export * from './signing';
export * from './settlement-state';
export * from './cursor';

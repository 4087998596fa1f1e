export * from './test-env';
export * from './test-app';
export * from './factories';
export * from './webhook-receiver';
export * from './wait';
export * from './webhook-fixtures';
export * from './smtp-sink';
export * from './tcp-proxy';

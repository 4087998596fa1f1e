export * from './password';
export * from './secrets';

export * from './env';
export * from './app-config';
export * from './config.module';
export * from './derived-keys';

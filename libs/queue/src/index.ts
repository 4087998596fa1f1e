export * from './queues';
export * from './redis';
export * from './portal-jobs';
export * from './queue-health';
export * from './producer-queue';

import { Module } from '@nestjs/common';
import { OperatorQueues } from './operator-queues';

/** Operators' views of the running service: the queue dashboard and the queue gauges. */
@Module({ providers: [OperatorQueues], exports: [OperatorQueues] })
export class OperationsModule {}

import { Module } from '@nestjs/common';
import { OperatorsRepository } from './operators.repository';

/** Named operators' rows: accounts, personal tokens, console sessions. */
@Module({ providers: [OperatorsRepository], exports: [OperatorsRepository] })
export class OperatorsCoreModule {}

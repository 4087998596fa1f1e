import { Module } from '@nestjs/common';
import { IngestionCoreModule, UploadsCoreModule, WebhooksCoreModule } from '@app/core';
import { QUEUES } from '@app/queue';
import { CsvImportProcessor } from './csv/csv-import.processor';
import { CsvRelayService } from './csv/csv-relay.service';
import { KeyRemindersProcessor } from './reminders/key-reminders.processor';
import { KeyRemindersRepository } from './reminders/key-reminders.repository';
import { KeyRemindersService } from './reminders/key-reminders.service';
import { registerWorkerQueues } from './worker-queues';

/** The portal's background work: CSV imports (and their relay) and API-key expiry reminders. */
@Module({
  imports: [
    registerWorkerQueues(QUEUES.csv, QUEUES.reminders),
    IngestionCoreModule,
    UploadsCoreModule,
    WebhooksCoreModule,
  ],
  providers: [
    CsvImportProcessor,
    CsvRelayService,
    KeyRemindersRepository,
    KeyRemindersService,
    KeyRemindersProcessor,
  ],
  exports: [KeyRemindersService, CsvRelayService],
})
export class PortalJobsModule {}

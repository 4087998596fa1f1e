import { Module } from '@nestjs/common';
import { CsvUploadsRepository } from './csv-uploads.repository';

/** CSV uploads: the portal's uploads (api), the import and its relay (worker). */
@Module({ providers: [CsvUploadsRepository], exports: [CsvUploadsRepository] })
export class UploadsCoreModule {}

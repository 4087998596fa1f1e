import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { Institution } from './institution.entity';

/** An institution's widget: the origins allowed to embed it and its theme. */
@Entity('widget_settings')
// Which institution lists a browser's Origin (the widget API's CORS check).
@Index('widget_settings_origins_idx', ['allowedOrigins'], { type: 'gin' })
export class WidgetSettings {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  @Column('text', { name: 'allowed_origins', array: true, default: () => "'{}'" })
  allowedOrigins: string[];
  @Column('jsonb', { default: {} }) theme: Record<string, string>;
  @Column('boolean', { default: false }) personalize: boolean;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
}

import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  OneToMany,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import type { MerchantIdentifierTypeValue } from '@app/domain';

@Entity('merchant')
@Index('merchant_lower_name_idx', { synchronize: false })
@Index('merchant_category_idx', ['category'])
export class Merchant {
  @PrimaryGeneratedColumn('uuid') id: string;
  /** Searched case-insensitively (merchant_lower_name_idx on lower(name)). */
  @Column('text') name: string;
  /** Lowercase code such as `groceries`. */
  @Column('text') category: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @OneToMany(() => MerchantIdentifier, (i) => i.merchant) identifiers?: MerchantIdentifier[];
}

/** (type, value) is unique across the service and resolves to exactly one merchant. */
@Entity('merchant_identifier')
@Unique('merchant_identifier_type_value_key', ['type', 'value'])
@Index('merchant_identifier_merchant_idx', ['merchantId'])
export class MerchantIdentifier {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'merchant_id' }) merchantId: string;
  @ManyToOne(() => Merchant, (m) => m.identifiers, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'merchant_id' })
  merchant?: Merchant;
  @Column('text') type: MerchantIdentifierTypeValue;
  @Column('text') value: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

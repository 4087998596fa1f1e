import {
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  OneToMany,
  PrimaryGeneratedColumn,
} from 'typeorm';
import type { MerchantIdentifierTypeValue } from '@app/domain';

@Entity('merchant')
export class Merchant {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('text') name: string;
  /** Lowercase code such as `groceries`. */
  @Column('text') category: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @OneToMany(() => MerchantIdentifier, (i) => i.merchant) identifiers?: MerchantIdentifier[];
}

/** (type, value) is unique across the service and resolves to exactly one merchant. */
@Entity('merchant_identifier')
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

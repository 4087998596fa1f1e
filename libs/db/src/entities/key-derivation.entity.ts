import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** One row: when the per-purpose keys came in, and when stored secrets were last re-encrypted. */
@Entity('key_derivation')
@Check('"id"')
export class KeyDerivation {
  @PrimaryColumn('boolean', { default: true }) id: boolean;
  @Column('timestamptz', { name: 'upgraded_at', default: () => 'now()' }) upgradedAt: Date;
  @Column('timestamptz', { name: 'reencrypted_at', nullable: true }) reencryptedAt: Date | null;
}

import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, InstantColumn } from './columns';

/** The notification URL registered at the gateway, once per URL and method, reused across deploys. */
@Entity({ name: 'ipn_registrations' })
@Index('uq_ipn_registrations_url_method', ['url', 'method'], { unique: true })
export class IpnRegistrationEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  url!: string;

  @Column({ type: 'varchar', length: 4 })
  method!: 'GET' | 'POST';

  /** The merchant account it is registered for (each has its own IPN URL and id). */
  @Column({ name: 'gateway_account', type: 'varchar', length: 20, default: 'default' })
  gatewayAccount!: string;

  @Column({ name: 'ipn_id', type: 'varchar', length: 64 })
  ipnId!: string;

  /** The instant the gateway reports for the registration, converted to UTC. */
  @InstantColumn({ name: 'gateway_created_at', nullable: true })
  gatewayCreatedAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;
}

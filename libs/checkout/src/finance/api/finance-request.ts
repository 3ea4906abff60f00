import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { DataSource } from 'typeorm';
import { CheckoutError, FieldProblem } from '../../errors/checkout-error';
import { FinanceSnapshot } from './finance-snapshot';
import { FinanceRangeQuery } from './finance.dto';
import { readRange } from './report-range';

/**
 * Opens the snapshot each finance read runs in, once the request is checked: what every read
 * shares (range, zone, currency, account; `extra` adds a read's own problems), each bad field
 * named at once.
 */
@Injectable()
export class FinanceSnapshots {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async open(query: FinanceRangeQuery, extra: FieldProblem[] = []): Promise<FinanceSnapshot> {
    const { range, problems } = readRange(query, this.config.reportTimeZone);
    if (
      query.currency !== undefined &&
      !this.config.currencies.includes(query.currency.toUpperCase())
    ) {
      problems.push({
        field: 'currency',
        reason: `must be one of the configured currencies (${this.config.currencies.join(', ')})`,
      });
    }
    const accounts = this.config.gateway.accounts.map((account) => account.id);
    if (query.account !== undefined && !accounts.includes(query.account)) {
      problems.push({
        field: 'account',
        reason: `must be one of the merchant accounts (${accounts.join(', ')})`,
      });
    }
    problems.push(...extra);
    if (problems.length > 0 || !range) throw CheckoutError.invalid(problems);
    return FinanceSnapshot.open(this.dataSource, range);
  }
}

import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { PAYMENT_LINK_FIELDS, PaymentLinkField } from '@app/persistence';
import { AccountField } from '../../../http/account-field';
import { URL_MAX_LENGTH } from '../../../http/documented-schemas';
import { CursorPageQuery, ISO_DATE_TIME_MAX_LENGTH } from '../../../http/page-query';
import { AtMostCharacters, IsConfiguredCurrency, IsPositiveAmount } from '../dto/checkout-rules';
import { PAYMENT_LINK_STATUSES, PaymentLinkStatus } from './payment-link-status';

/** An amount as text or number: a decimal of at most 16 characters, with room for spaces. */
const AMOUNT_TEXT_MAX_LENGTH = 32;
/** `<prefix>-<n>` stays within a reference's 50 characters for any count of payments. */
export const REFERENCE_PREFIX_MAX_LENGTH = 24;
export const REFERENCE_PREFIX_PATTERN = /^[A-Za-z0-9._:/-]+$/;
export const MAX_PAYMENTS_LIMIT = 1_000_000;
export const AFTER_PAYMENT_MESSAGE_MAX_LENGTH = 500;
const URL_RULES = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
const upper = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.toUpperCase() : value;
const AMOUNT = {
  oneOf: [{ type: 'string' }, { type: 'number' }],
  example: '1500.00',
  description: 'Greater than 0, at most 2 decimals',
};

/** What the customer sees once paid: sent on to a page of the merchant's, or a message. */
export class AfterPaymentDto {
  @ApiPropertyOptional({ example: 'https://shop.example/thank-you', maxLength: URL_MAX_LENGTH })
  @IsOptional()
  @IsUrl(URL_RULES, { message: 'must be an http(s) URL' })
  @AtMostCharacters(URL_MAX_LENGTH)
  redirect_url?: string;

  @ApiPropertyOptional({
    example: 'Thank you! We deliver within two days.',
    maxLength: AFTER_PAYMENT_MESSAGE_MAX_LENGTH,
  })
  @IsOptional()
  @IsString()
  @Length(1, AFTER_PAYMENT_MESSAGE_MAX_LENGTH)
  message?: string;
}

/** POST /v1/payment-links. */
export class CreatePaymentLinkDto {
  @ApiPropertyOptional({ ...AMOUNT, description: 'A fixed amount; leave out for an open one' })
  @IsOptional()
  @IsPositiveAmount()
  @AtMostCharacters(AMOUNT_TEXT_MAX_LENGTH)
  amount?: string | number;

  @ApiPropertyOptional({ ...AMOUNT, description: 'Open amount: the least the customer may pay' })
  @IsOptional()
  @IsPositiveAmount()
  @AtMostCharacters(AMOUNT_TEXT_MAX_LENGTH)
  min_amount?: string | number;

  @ApiPropertyOptional({ ...AMOUNT, description: 'Open amount: the most the customer may pay' })
  @IsOptional()
  @IsPositiveAmount()
  @AtMostCharacters(AMOUNT_TEXT_MAX_LENGTH)
  max_amount?: string | number;

  @ApiProperty({ example: 'KES', description: 'ISO 4217, one of the configured CURRENCIES' })
  @Transform(upper)
  @IsString()
  @AtMostCharacters(3)
  @IsConfiguredCurrency()
  currency!: string;

  @AccountField("The merchant account its payments go to; by default the currency's")
  account?: string;

  @ApiProperty({ example: 'Invoice 2041: two bags of coffee', minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100)
  @Matches(/\S/, { message: 'must not be blank' })
  description!: string;

  @ApiPropertyOptional({
    example: 'INV-2041',
    maxLength: REFERENCE_PREFIX_MAX_LENGTH,
    description:
      'Its payments are the orders `<prefix>-1`, `<prefix>-2`, …; unique among links. By default `link-` and 12 hex digits',
  })
  @IsOptional()
  @IsString()
  @Length(1, REFERENCE_PREFIX_MAX_LENGTH)
  @Matches(REFERENCE_PREFIX_PATTERN, { message: 'must be characters of A-Z a-z 0-9 . _ : / -' })
  reference_prefix?: string;

  @ApiPropertyOptional({
    example: '2030-01-31T21:00:00Z',
    description: 'When the page stops taking payments (ISO 8601, in the future)',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  @MaxLength(ISO_DATE_TIME_MAX_LENGTH)
  expires_at?: string;

  @ApiPropertyOptional({
    example: 1,
    minimum: 1,
    maximum: MAX_PAYMENTS_LIMIT,
    description: 'How many payments it takes (1: single use); any number when left out',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAYMENTS_LIMIT)
  max_payments?: number;

  @ApiPropertyOptional({
    type: AfterPaymentDto,
    description: 'A redirect_url or a message (one of them) for the paid customer',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => AfterPaymentDto)
  after_payment?: AfterPaymentDto;

  @ApiPropertyOptional({
    type: [String],
    enum: PAYMENT_LINK_FIELDS,
    example: ['email', 'name'],
    description:
      'The customer fields the page asks for (email or phone at least); ["email"] by default',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(PAYMENT_LINK_FIELDS.length)
  @ArrayUnique()
  @IsIn(PAYMENT_LINK_FIELDS, { each: true })
  collect?: PaymentLinkField[];
}

/** PATCH /v1/payment-links/{id}: what may change once customers have the address. */
export class UpdatePaymentLinkDto {
  @ApiPropertyOptional({ example: 'Invoice 2041 (revised)', minLength: 1, maxLength: 100 })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  @Matches(/\S/, { message: 'must not be blank' })
  description?: string;

  @ApiPropertyOptional({
    type: String,
    example: '2030-02-28T21:00:00Z',
    nullable: true,
    description: 'A new expiry (in the future), or null for none',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  @MaxLength(ISO_DATE_TIME_MAX_LENGTH)
  expires_at?: string | null;

  @ApiPropertyOptional({
    enum: [false],
    description: 'false deactivates the link for good: its page takes no more payments',
  })
  @IsOptional()
  @IsBoolean()
  @IsIn([false], { message: 'can only be false: a deactivated link stays deactivated' })
  active?: boolean;
}

export class ListPaymentLinksQuery extends CursorPageQuery {
  @ApiPropertyOptional({ enum: PAYMENT_LINK_STATUSES, description: 'every status unless given' })
  @IsOptional()
  @IsIn(PAYMENT_LINK_STATUSES)
  status?: PaymentLinkStatus;

  @ApiPropertyOptional({ example: 'KES' })
  @IsOptional()
  @Transform(upper)
  @IsString()
  @Length(3, 3)
  currency?: string;
}

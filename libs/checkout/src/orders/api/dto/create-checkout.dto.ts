import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsEmail,
  IsIn,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { MERCHANT_REFERENCE_MAX_LENGTH, MERCHANT_REFERENCE_PATTERN } from '@app/domain';
import { URL_MAX_LENGTH } from '../../../http/documented-schemas';
import {
  AtMostCharacters,
  HasEmailOrPhone,
  IsAfterField,
  IsConfiguredCurrency,
  IsConfiguredNetwork,
  IsFutureDate,
  IsMobileMoneyCountry,
  IsMobileNumberOfCheckout,
  IsPositiveAmount,
} from './checkout-rules';
import { billingPhone, TYPED_PHONE_MAX_LENGTH } from './mobile-number';
import { AccountField } from '../../../http/account-field';

const PHONE = /^\+?\d{9,15}$/;
/** An ISO 3166-1 alpha-2 country code. */
export const COUNTRY_CODE_LENGTH = 2;
/** A configured mobile money network (orders.network: varchar(32)). */
export const NETWORK_MAX_LENGTH = 32;
/** An amount as text: a decimal of at most 16 characters, with room for spaces around it. */
const AMOUNT_TEXT_MAX_LENGTH = 32;
/** An ISO 8601 date, or a date-time with nanoseconds and an offset (2030-01-01T00:00:00.000000000+03:00). */
const ISO_DATE_MAX_LENGTH = 35;
const URL_RULES = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
const upper = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.toUpperCase() : value;

export class CustomerDto {
  @ApiPropertyOptional({ example: 'amina@example.com' })
  @IsOptional()
  @IsEmail({}, { message: 'must be an email address' })
  @Length(3, 254)
  email?: string;

  @ApiPropertyOptional({
    example: '0712 345 678',
    description:
      "As typed; read for the address's country_code (else international) and sent as +254712345678",
  })
  @IsOptional()
  @Transform(({ value, obj }: { value: unknown; obj: { country_code?: unknown } }) =>
    billingPhone(value, obj.country_code),
  )
  @IsString()
  @MaxLength(TYPED_PHONE_MAX_LENGTH)
  @Matches(PHONE, {
    message:
      'must be a phone number: with the country code (+254 712 345 678) or, with country_code, as dialled at home (0712 345 678)',
  })
  phone?: string;

  @ApiPropertyOptional({ example: 'Amina' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  first_name?: string;

  @ApiPropertyOptional({ example: 'W.' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  middle_name?: string;

  @ApiPropertyOptional({ example: 'Otieno' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  last_name?: string;

  @ApiPropertyOptional({ example: 'KE', description: 'ISO 3166-1 alpha-2' })
  @IsOptional()
  @IsString()
  @MaxLength(COUNTRY_CODE_LENGTH)
  @Matches(/^[A-Za-z]{2}$/, { message: 'must be an ISO 3166-1 alpha-2 code' })
  country_code?: string;

  @ApiPropertyOptional({ example: 'Moi Avenue 12' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  line_1?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 200)
  line_2?: string;

  @ApiPropertyOptional({ example: 'Nairobi' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  city?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 100)
  state?: string;

  @ApiPropertyOptional({ example: '00100' })
  @IsOptional()
  @IsString()
  @Length(1, 20)
  postal_code?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 20)
  zip_code?: string;
}

export class SubscriptionDto {
  @ApiProperty({ example: 'SUB-0001', description: "The subscriber's id in the shop" })
  @IsString()
  @Length(1, 100)
  account_number!: string;

  @ApiProperty({ example: '2030-01-01', description: 'ISO 8601 date, in the future' })
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 date' })
  @AtMostCharacters(ISO_DATE_MAX_LENGTH)
  @IsFutureDate()
  start_date!: string;

  @ApiProperty({ example: '2030-12-31', description: 'ISO 8601 date, after start_date' })
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 date' })
  @AtMostCharacters(ISO_DATE_MAX_LENGTH)
  @IsAfterField('start_date')
  end_date!: string;

  @ApiProperty({ example: 'MONTHLY', enum: ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] })
  @Transform(upper)
  @IsIn(['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'])
  frequency!: string;
}

/** POST /v1/checkouts: a payment on the gateway's hosted page. */
export class CreateCheckoutDto {
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'number' }],
    example: '1500.00',
    description: 'Greater than 0, at most 2 decimals; a decimal string is preferred',
  })
  @IsPositiveAmount()
  @AtMostCharacters(AMOUNT_TEXT_MAX_LENGTH)
  amount!: string | number;

  @ApiProperty({ example: 'KES', description: 'ISO 4217, one of the configured CURRENCIES' })
  @Transform(upper)
  @IsString()
  // orders.currency: varchar(3); every configured currency is an ISO 4217 code.
  @AtMostCharacters(3)
  @IsConfiguredCurrency()
  currency!: string;

  @AccountField(
    "The merchant account (PESAPAL_ACCOUNTS) to take the payment on; by default the currency's",
  )
  account?: string;

  @ApiProperty({ example: 'Two bags of coffee', minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100)
  @Matches(/\S/, { message: 'must not be blank' })
  description!: string;

  @ApiPropertyOptional({
    example: 'ORDER-2041',
    description:
      "The shop's own order id (1–50 of A-Z a-z 0-9 . _ : / -); generated when absent. Re-using it with the same amount returns the existing order; with another amount, 409.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(MERCHANT_REFERENCE_MAX_LENGTH)
  @Matches(MERCHANT_REFERENCE_PATTERN, {
    message: 'must be 1–50 characters of A-Z a-z 0-9 . _ : / -',
  })
  reference?: string;

  @ApiProperty({ type: CustomerDto, description: 'At least an email or a phone' })
  @IsObject()
  @HasEmailOrPhone()
  @ValidateNested()
  @Type(() => CustomerDto)
  customer!: CustomerDto;

  @ApiPropertyOptional({ example: 'https://shop.example/thank-you' })
  @IsOptional()
  @IsUrl(URL_RULES, { message: 'must be an http(s) URL' })
  @AtMostCharacters(URL_MAX_LENGTH)
  return_url?: string;

  @ApiPropertyOptional({ example: 'https://shop.example/cart' })
  @IsOptional()
  @IsUrl(URL_RULES, { message: 'must be an http(s) URL' })
  @AtMostCharacters(URL_MAX_LENGTH)
  cancel_url?: string;

  @ApiPropertyOptional({ example: 'Nairobi CBD' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  branch?: string;

  @ApiPropertyOptional({ example: 'TOP_WINDOW', enum: ['TOP_WINDOW', 'PARENT_WINDOW'] })
  @IsOptional()
  @IsIn(['TOP_WINDOW', 'PARENT_WINDOW'])
  redirect_mode?: 'TOP_WINDOW' | 'PARENT_WINDOW';

  @ApiPropertyOptional({ type: SubscriptionDto, description: 'Makes the payment recurring' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SubscriptionDto)
  subscription?: SubscriptionDto;
}

/** POST /v1/checkouts/mobile-money: a PIN prompt pushed to the customer's phone. */
export class CreateMobileMoneyCheckoutDto extends CreateCheckoutDto {
  @ApiProperty({
    example: '0712 345 678',
    description:
      "The mobile number to prompt, as the customer typed it (0712 345 678, +254 712-345-678, 254712345678): a mobile number of the checkout's country",
  })
  @IsMobileNumberOfCheckout()
  @AtMostCharacters(TYPED_PHONE_MAX_LENGTH)
  phone!: string;

  @ApiPropertyOptional({
    example: 'KE',
    description:
      'ISO 3166-1 alpha-2 country of the phone; defaults to the one the currency names (KES → KE, UGX → UG, TZS → TZ, …), required otherwise',
  })
  @IsMobileMoneyCountry()
  @AtMostCharacters(COUNTRY_CODE_LENGTH)
  country?: string;

  @ApiProperty({ example: 'MPESA', description: 'One of MOBILE_MONEY_NETWORKS' })
  @IsString()
  @MaxLength(NETWORK_MAX_LENGTH)
  @IsConfiguredNetwork()
  network!: string;
}

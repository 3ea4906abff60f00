import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { IsConfiguredNetwork } from './checkout-rules';
import { COUNTRY_CODE_LENGTH, NETWORK_MAX_LENGTH } from './create-checkout.dto';
import { TYPED_PHONE_MAX_LENGTH } from './mobile-number';

/** POST /v1/orders/:reference/attempts: the customer tries again, on the page or by a prompt. */
export class StartAttemptDto {
  @ApiProperty({
    enum: ['hosted', 'mobile_money'],
    description: 'The hosted payment page again, or a PIN prompt to a phone',
  })
  @IsIn(['hosted', 'mobile_money'])
  method!: 'hosted' | 'mobile_money';

  @ApiPropertyOptional({
    example: '0712 345 678',
    description:
      "With mobile_money: the phone to prompt, as the customer typed it (the order's country)",
  })
  @ValidateIf((attempt: StartAttemptDto) => attempt.method === 'mobile_money')
  @IsString()
  @MaxLength(TYPED_PHONE_MAX_LENGTH)
  phone?: string;

  @ApiPropertyOptional({
    example: 'KE',
    description: "Country of the phone; defaults to the one the order's currency names",
  })
  @IsOptional()
  @IsString()
  @MaxLength(COUNTRY_CODE_LENGTH)
  country?: string;

  @ApiPropertyOptional({
    example: 'MPESA',
    description: 'With mobile_money: one of MOBILE_MONEY_NETWORKS',
  })
  @ValidateIf((attempt: StartAttemptDto) => attempt.method === 'mobile_money')
  @IsString()
  @MaxLength(NETWORK_MAX_LENGTH)
  @IsConfiguredNetwork()
  network?: string;
}

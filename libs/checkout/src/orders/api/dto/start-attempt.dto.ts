import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, ValidateIf } from 'class-validator';
import { IsConfiguredNetwork } from './checkout-rules';

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
  phone?: string;

  @ApiPropertyOptional({
    example: 'KE',
    description: "Country of the phone; defaults to the one the order's currency names",
  })
  @IsOptional()
  @IsString()
  country?: string;

  @ApiPropertyOptional({
    example: 'MPESA',
    description: 'With mobile_money: one of MOBILE_MONEY_NETWORKS',
  })
  @ValidateIf((attempt: StartAttemptDto) => attempt.method === 'mobile_money')
  @IsString()
  @IsConfiguredNetwork()
  network?: string;
}

import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { ACCOUNT_ID_PATTERN } from '@app/config';

/** An optional merchant account id (PESAPAL_ACCOUNTS) in a request: its rules and its document. */
export const AccountField = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({
      example: 'ke',
      pattern: ACCOUNT_ID_PATTERN.source,
      maxLength: 20,
      description,
    }),
    IsOptional(),
    IsString(),
    MaxLength(20),
    Matches(ACCOUNT_ID_PATTERN, { message: 'must be an account id (a-z, 0-9, _)' }),
  );

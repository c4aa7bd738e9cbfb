import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsIn } from 'class-validator';
import { IsJsonObject } from '../../common/validation/object-rules.decorator';
import { LOWERCASE_UUID_V4 } from '../../common/validation/patterns';
import { Required, RequiredNullable } from '../../common/validation/presence.decorators';
import { IsText } from '../../common/validation/text-field.decorator';

export const CLIENT_ERROR_PLATFORMS = ['android', 'ios', 'harmony'] as const;
export const SEVERITIES = ['normal', 'serious', 'fatal'] as const;
const UUID = { regex: LOWERCASE_UUID_V4, description: 'a lowercase UUID v4' };

/** POST /app/sdk/client-errors (spec 4.2): all 16 fields are required; nullable ones are sent as null. */
export class ReportClientErrorDto {
  @ApiProperty({ description: 'Lowercase UUID v4; reused on retry.', example: '0f8fad5b-d9cb-469f-a165-70867728950e' })
  @Required()
  @IsText({ min: 36, max: 36, pattern: UUID })
  event_id: string;

  @ApiProperty({ description: "1–64 characters; must equal the token's user." })
  @Required()
  @IsText({ min: 1, max: 64 })
  user_id: string;

  @ApiProperty({ type: String, nullable: true, description: 'At most 64 characters; stored scrubbed.' })
  @RequiredNullable()
  @IsText({ min: 0, max: 64 })
  username: string | null;

  @ApiProperty({
    description:
      '1–128 characters of letters, digits, ".", "_", ":", "-"; stable per installation. One holding a JWT or a service secret is refused (1004).',
  })
  @Required()
  @IsText({
    min: 1,
    max: 128,
    pattern: { regex: /^[A-Za-z0-9._:-]+$/, description: 'letters, digits, ".", "_", ":" or "-"' },
  })
  device_id: string;

  @ApiProperty({ enum: CLIENT_ERROR_PLATFORMS })
  @Required()
  @IsIn(CLIENT_ERROR_PLATFORMS, { message: 'platform must be one of android, ios, harmony' })
  platform: string;

  @ApiProperty({ enum: SEVERITIES })
  @Required()
  @IsIn(SEVERITIES, { message: 'severity must be one of normal, serious, fatal' })
  severity: string;

  @ApiProperty({
    description:
      'At most 128 characters: lowercase letters and digits, segments separated by single ".", "_" or "-". One holding a service secret is refused (1004).',
    example: 'net.timeout',
  })
  @Required()
  @IsText({
    min: 1,
    max: 128,
    pattern: {
      regex: /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/,
      description: 'lowercase letters and digits in segments separated by single ".", "_" or "-"',
    },
  })
  error_code: string;

  @ApiProperty({ description: '1–4096 characters. Stored scrubbed of tokens, secrets and credential pairs.' })
  @Required()
  @IsText({ min: 1, max: 4096 })
  message: string;

  @ApiProperty({ type: String, nullable: true, description: 'At most 32768 characters; stored scrubbed.' })
  @RequiredNullable()
  @IsText({ min: 0, max: 32768 })
  stack_trace: string | null;

  @ApiProperty({ description: '1–128 characters; stored scrubbed.', example: 'sync' })
  @Required()
  @IsText({ min: 1, max: 128 })
  operation: string;

  @ApiProperty({ type: String, nullable: true, description: 'At most 128 characters; stored scrubbed.' })
  @RequiredNullable()
  @IsText({ min: 0, max: 128 })
  build_id: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'At most 512 characters; stored scrubbed.' })
  @RequiredNullable()
  @IsText({ min: 0, max: 512 })
  conversation_id: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'At most 128 characters; stored scrubbed.' })
  @RequiredNullable()
  @IsText({ min: 0, max: 128 })
  message_id: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Lowercase UUID v4.' })
  @RequiredNullable()
  @IsText({ min: 36, max: 36, pattern: UUID })
  trace_id: string | null;

  @ApiProperty({ description: 'JSON boolean.' })
  @Required()
  @IsBoolean({ message: 'recovered must be a JSON boolean (true or false)' })
  recovered: boolean;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'JSON object with at least one key (not an array), at most 65536 bytes as JSON; stored scrubbed (authorization/cookie keys and credential values removed).',
  })
  @Required()
  @IsJsonObject(1)
  context: Record<string, unknown>;
}

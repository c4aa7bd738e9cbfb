import { ApiProperty, PickType } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { IssueTokenDto } from '../auth/dto/issue-token.dto';
import { NICKNAME_RULES } from '../common/validation/field-rules';
import { Required } from '../common/validation/presence.decorators';
import { IsText, TextRules } from '../common/validation/text-field.decorator';
import { SMS_PURPOSES, SmsPurpose } from './host-app.entities';

const PHONE: TextRules = {
  min: 1,
  max: 16,
  pattern: { regex: /^\+[1-9][0-9]{7,14}$/, description: 'an E.164 number: "+" and 8–15 digits' },
};
const CODE: TextRules = { min: 1, max: 6, pattern: { regex: /^[0-9]{6}$/, description: 'the 6-digit SMS code' } };
/** The policy (8–128 characters, not only whitespace) is checked by the service, naming the field. */
const PASSWORD: TextRules = { min: 1, max: 1024 };
const PHONE_DOC = { description: 'E.164: "+" and 8–15 digits.', example: '+8613800138000' };
const CODE_DOC = { description: 'The 6-digit code from POST /app/auth/sms/send.', example: '123456' };
const NEW_PASSWORD_DOC = { description: '8–128 characters, not only whitespace.', example: 'correct horse battery' };

export class SmsSendDto {
  @ApiProperty(PHONE_DOC) @Required() @IsText(PHONE) phone: string;
  @ApiProperty({
    enum: SMS_PURPOSES,
    description: 'What the code will be used for; a code works for its purpose only.',
  })
  @Required()
  @IsIn(SMS_PURPOSES, { message: 'purpose must be one of signup, login, reset' })
  purpose: SmsPurpose;
}

export class SignupDto {
  @ApiProperty(PHONE_DOC) @Required() @IsText(PHONE) phone: string;
  @ApiProperty(CODE_DOC) @Required() @IsText(CODE) code: string;
  @ApiProperty(NEW_PASSWORD_DOC) @Required() @IsText(PASSWORD) password: string;
  @ApiProperty({ description: 'The IM nickname: 1–80 characters, no edge whitespace or control characters.' })
  @Required()
  @IsText(NICKNAME_RULES)
  nickname: string;
}

export class PasswordLoginDto {
  @ApiProperty(PHONE_DOC) @Required() @IsText(PHONE) phone: string;
  @ApiProperty() @Required() @IsText(PASSWORD) password: string;
}

export class CodeLoginDto {
  @ApiProperty(PHONE_DOC) @Required() @IsText(PHONE) phone: string;
  @ApiProperty(CODE_DOC) @Required() @IsText(CODE) code: string;
}

export class ResetPasswordDto {
  @ApiProperty(PHONE_DOC) @Required() @IsText(PHONE) phone: string;
  @ApiProperty(CODE_DOC) @Required() @IsText(CODE) code: string;
  @ApiProperty(NEW_PASSWORD_DOC) @Required() @IsText(PASSWORD) new_password: string;
}

export class NewPasswordDto {
  @ApiProperty() @Required() @IsText(PASSWORD) old_password: string;
  @ApiProperty(NEW_PASSWORD_DOC) @Required() @IsText(PASSWORD) new_password: string;
}

/** Only the native push fields of POST /app/sdk/token: the user is the session's, never the request's. */
export class HostTokenDto extends PickType(IssueTokenDto, ['platform', 'manufacturer', 'package_name'] as const) {}

export class SmsInboxQueryDto {
  @ApiProperty(PHONE_DOC) @Required() @IsText(PHONE) phone: string;
}

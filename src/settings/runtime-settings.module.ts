import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RuntimeSettingEntity } from './runtime-setting.entity';
import { RuntimeSettingsRepository } from './runtime-settings.repository';
import { RuntimeSettingsService } from './runtime-settings.service';

/**
 * Settings an operator changes at runtime (admin console → Settings). Global: guards in common/
 * and most feature modules read them on every request.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([RuntimeSettingEntity])],
  providers: [RuntimeSettingsRepository, RuntimeSettingsService],
  exports: [RuntimeSettingsService],
})
export class RuntimeSettingsModule {}

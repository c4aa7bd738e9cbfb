import { Module } from '@nestjs/common';
import { AdminConsoleController } from './admin-console.controller';
import { ConsoleAssets } from './console-assets';

/** The admin console's web UI at /admin: static files over the JSON API of AdminModule. */
@Module({
  controllers: [AdminConsoleController],
  providers: [ConsoleAssets],
})
export class AdminConsoleModule {}

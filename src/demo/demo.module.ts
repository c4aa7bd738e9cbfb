import { Module } from '@nestjs/common';
import { DemoController } from './demo.controller';
import { DemoFiles } from './demo-files';

/** The demo chat page (development only). */
@Module({ controllers: [DemoController], providers: [DemoFiles] })
export class DemoModule {}

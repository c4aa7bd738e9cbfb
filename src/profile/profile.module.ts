import { Module } from '@nestjs/common';

/** The SDK user's own profile and other users' public profiles. */
@Module({})
export class ProfileModule {}

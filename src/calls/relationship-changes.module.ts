import { Module } from '@nestjs/common';
import { RelationshipChanges } from './relationship-changes';

/** RelationshipChanges alone, for friends and groups to import without the calls module (see there). */
@Module({
  providers: [RelationshipChanges],
  exports: [RelationshipChanges],
})
export class RelationshipChangesModule {}
